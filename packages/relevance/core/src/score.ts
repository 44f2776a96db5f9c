/** `relevanceScore` is the model output clamped to the 0..10 scale. */
export function clampScore(prediction: number): number | null {
  if (Number.isNaN(prediction)) return null;
  return Math.min(10, Math.max(0, prediction));
}
