import { kvContract } from "../contract/kv.contract.ts";
import { settingsTableContract } from "../contract/settings-table.contract.ts";
import { openDatabase } from "./database.ts";
import { SqliteKv } from "./kv.ts";
import { SqliteSettingsTable } from "./settings-table.ts";

settingsTableContract("SQLite (node:sqlite)", async () => new SqliteSettingsTable(openDatabase(":memory:")));
kvContract("SQLite (node:sqlite)", async () => new SqliteKv(openDatabase(":memory:")));
