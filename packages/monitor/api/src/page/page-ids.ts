/** Element ids shared by the server's document (page.ts) and the browser client. */

/** The JSON script element holding the state the page was rendered from. */
export const STATE_ELEMENT_ID = "page-state";
