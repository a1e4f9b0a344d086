-- 0001 foundation: users, imports, sleep samples, rollup state.
--
-- Rules for every table that holds a user's data, now and in later migrations
-- (Tests/LedgerStoreTests/CatalogRuleTests checks them from pg_catalog):
--   * it has a user_id column, and its primary key and every unique key start with user_id;
--   * user_id references users(id) ON DELETE CASCADE, so removing a user removes everything.
-- Instants are timestamptz holding whole UTC seconds; local dates are date.
-- Applied inside one transaction by `sleepledger migrate`; no BEGIN/COMMIT here.

CREATE TABLE users (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    handle text NOT NULL CHECK (length(handle) BETWEEN 1 AND 64),
    time_zone text NOT NULL CHECK (length(time_zone) BETWEEN 1 AND 64),
    target_seconds integer NOT NULL DEFAULT 28800,
    minimum_seconds integer NOT NULL DEFAULT 25200,
    created_at timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT users_goals_check CHECK (minimum_seconds > 0 AND target_seconds >= minimum_seconds
        AND target_seconds <= 86400)
);
-- Handles are unique regardless of letter case ("Anna" and "anna" are one user).
CREATE UNIQUE INDEX users_handle_key ON users (lower(handle));

CREATE TABLE imports (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    file_name text NOT NULL,
    size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
    sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    kind text NOT NULL CHECK (kind IN ('zip', 'xml', 'csv')),
    status text NOT NULL DEFAULT 'running' CHECK (status IN ('running', 'succeeded', 'failed')),
    started_at timestamptz NOT NULL DEFAULT now(),
    finished_at timestamptz,
    samples_read bigint NOT NULL DEFAULT 0,
    samples_inserted bigint NOT NULL DEFAULT 0,
    samples_duplicate bigint NOT NULL DEFAULT 0,
    samples_rejected bigint NOT NULL DEFAULT 0,
    diagnostics jsonb NOT NULL DEFAULT '[]'::jsonb,
    PRIMARY KEY (user_id, id),
    CHECK (finished_at IS NULL OR finished_at >= started_at)
);
CREATE INDEX imports_user_sha256 ON imports (user_id, sha256);

-- One row per distinct sample; re-importing the same export adds nothing (the key is
-- the sample itself). stage uses SleepCore's SleepStage raw values.
CREATE TABLE sleep_samples (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    source text NOT NULL,
    start_at timestamptz NOT NULL,
    end_at timestamptz NOT NULL,
    stage text NOT NULL CHECK (stage IN ('inBed', 'asleepUnspecified', 'core', 'deep', 'rem', 'awake')),
    time_zone text,
    printed_utc_offset integer CHECK (printed_utc_offset BETWEEN -86400 AND 86400),
    import_id bigint,
    PRIMARY KEY (user_id, source, start_at, end_at, stage),
    FOREIGN KEY (user_id, import_id) REFERENCES imports (user_id, id),
    CHECK (end_at > start_at)
);
CREATE INDEX sleep_samples_user_end ON sleep_samples (user_id, end_at);

-- What the rollups (nights, daily summaries) still have to recompute for a user.
CREATE TABLE rollup_state (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    dirty_from date,
    summaries_stale boolean NOT NULL DEFAULT false,
    updated_at timestamptz NOT NULL DEFAULT now()
);
