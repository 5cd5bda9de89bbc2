// The mirror's SQLite database (sql.js: SQLite compiled to WebAssembly, installed from npm
// with nothing to build or download). One table per resource — id, updated_at and the
// record as the API returned it — and the time each resource was last synced from.
import initSqlJs from 'sql.js';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';

export const RESOURCES = ['orders', 'products', 'bookings', 'customers'];

export class StoreDb {
  /** @param {import('sql.js').Database} db @param {string} path */
  constructor(db, path) {
    this.db = db;
    this.path = path;
  }

  /** Opens (or creates) the database file at `path`. @param {string} path */
  static async open(path) {
    const SQL = await initSqlJs();
    const db = existsSync(path) ? new SQL.Database(readFileSync(path)) : new SQL.Database();
    for (const table of RESOURCES) {
      db.run(`create table if not exists ${table} (id text primary key, updated_at text, record text not null)`);
    }
    db.run('create table if not exists sync_state (resource text primary key, synced_from text not null)');
    return new StoreDb(db, path);
  }

  /**
   * Stores a record unless the mirror already holds a newer version of it (a late webhook
   * must not undo what a poll brought). Bookings have no updated_at: the latest wins.
   * @param {string} table @param {{id: string, updated_at?: string}} record
   */
  upsert(table, record) {
    this.db.run(
      `insert into ${table} (id, updated_at, record) values ($id, $updated_at, $record)
       on conflict (id) do update set updated_at = excluded.updated_at, record = excluded.record
       where ${table}.updated_at is null or excluded.updated_at is null or excluded.updated_at >= ${table}.updated_at`,
      { $id: record.id, $updated_at: record.updated_at ?? null, $record: JSON.stringify(record) });
  }

  /** Every record of `table`, by id. @param {string} table @returns {Map<string, object>} */
  records(table) {
    const out = new Map();
    const rows = this.db.exec(`select id, record from ${table}`)[0]?.values ?? [];
    for (const [id, record] of rows) out.set(String(id), JSON.parse(String(record)));
    return out;
  }

  /** @param {string} resource @returns {string | null} */
  syncedFrom(resource) {
    const rows = this.db.exec('select synced_from from sync_state where resource = $r', { $r: resource })[0]?.values;
    return rows ? String(rows[0][0]) : null;
  }

  /** @param {string} resource @param {string} time */
  setSyncedFrom(resource, time) {
    this.db.run('insert into sync_state values ($r, $t) on conflict (resource) do update set synced_from = $t',
                { $r: resource, $t: time });
  }

  /** Writes the database to its file (atomically: a reader never sees half a file). */
  save() {
    writeFileSync(`${this.path}.tmp`, this.db.export());
    renameSync(`${this.path}.tmp`, this.path);
  }
}
