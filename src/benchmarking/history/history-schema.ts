/**
 * The schema of a results-history database, as numbered migrations. A file records its version in
 * `dantinox_schema`; opening it applies the missing migrations in one transaction, and a file written by a newer
 * dantinox is refused.
 *
 * @packageDocumentation
 */

/** One schema step: the SQL that takes a database from `version − 1` to `version`. */
export interface HistoryMigration {
  /** The schema version after this step. */
  readonly version: number;
  /** What changed, for the changelog. */
  readonly description: string;
  /** Statements, run in order inside the opening transaction. */
  readonly statements: readonly string[];
}

/** Every migration, in order. The last one's version is {@link HISTORY_SCHEMA_VERSION}. */
export const HISTORY_MIGRATIONS: readonly HistoryMigration[] = [
  {
    version: 1,
    description: 'runs (identity, git, machine) and metrics in long format',
    statements: [
      'CREATE TABLE dantinox_schema (version INTEGER NOT NULL)',
      'INSERT INTO dantinox_schema VALUES (0)',
      `CREATE TABLE runs (
        run_id VARCHAR PRIMARY KEY,
        added_at TIMESTAMPTZ NOT NULL,
        started_at TIMESTAMPTZ,
        git_commit VARCHAR,
        git_branch VARCHAR,
        machine VARCHAR NOT NULL,
        cpu_model VARCHAR,
        cores INTEGER,
        memory_bytes BIGINT,
        engine VARCHAR,
        model VARCHAR,
        dtype VARCHAR,
        threads INTEGER,
        model_meta JSON,
        environment JSON
      )`,
      `CREATE TABLE metrics (
        run_id VARCHAR NOT NULL REFERENCES runs (run_id),
        task VARCHAR NOT NULL,
        cell VARCHAR,
        phase VARCHAR,
        status VARCHAR NOT NULL,
        error VARCHAR,
        metric VARCHAR,
        value DOUBLE,
        unit VARCHAR,
        higher_is_better BOOLEAN,
        description VARCHAR,
        seq INTEGER NOT NULL
      )`,
    ],
  },
  {
    version: 2,
    description: 'raw per-call samples of every timed cell',
    statements: [
      `CREATE TABLE samples (
        run_id VARCHAR NOT NULL REFERENCES runs (run_id),
        task VARCHAR NOT NULL,
        cell VARCHAR NOT NULL,
        samples_ms DOUBLE[] NOT NULL
      )`,
    ],
  },
];

/** The schema version this dantinox writes and reads. */
export const HISTORY_SCHEMA_VERSION: number = HISTORY_MIGRATIONS.at(-1)?.version ?? 0;
