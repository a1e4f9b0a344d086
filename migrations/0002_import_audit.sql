-- 0002 import audit: everything one `sleepledger import` run records about itself.
--
-- A run inserts its imports row as 'running' inside the loading transaction and sets it
-- to 'succeeded' before COMMIT, so a run that crashes or fails leaves no row from that
-- transaction. A failed run is then recorded in a transaction of its own with status
-- 'failed' and its error. Identity columns (size, SHA-256, kind) are known only once the
-- input has been read, and a file refused before its kind was known has none: they may
-- be NULL except on a succeeded row.

ALTER TABLE imports
    ALTER COLUMN size_bytes DROP NOT NULL,
    ALTER COLUMN sha256 DROP NOT NULL,
    ALTER COLUMN kind DROP NOT NULL,
    -- true when the input came from standard input (file_name is then "-").
    ADD COLUMN from_standard_input boolean NOT NULL DEFAULT false,
    -- The zip entry holding the Health export, e.g. apple_health_export/export.xml.
    ADD COLUMN entry_name text,
    -- XML Record elements at top level, or CSV data rows.
    ADD COLUMN records_seen bigint NOT NULL DEFAULT 0 CHECK (records_seen >= 0),
    -- Sleep samples that passed validation (samples_read = accepted + rejected).
    ADD COLUMN samples_accepted bigint NOT NULL DEFAULT 0 CHECK (samples_accepted >= 0),
    -- Accepted samples per stage: {"core": 120, "inBed": 30, ...} (SleepStage raw values).
    ADD COLUMN stage_counts jsonb NOT NULL DEFAULT '{}'::jsonb,
    -- Earliest start and latest end among the accepted samples.
    ADD COLUMN earliest_start_at timestamptz,
    ADD COLUMN latest_end_at timestamptz,
    -- Repairs that rejected nothing, e.g. replaced characters XML 1.0 forbids.
    ADD COLUMN warnings jsonb NOT NULL DEFAULT '[]'::jsonb,
    -- Rejections counted but beyond the diagnostics kept in the diagnostics column.
    ADD COLUMN diagnostics_not_kept bigint NOT NULL DEFAULT 0 CHECK (diagnostics_not_kept >= 0),
    -- The wake day from which this import marked the user's rollups dirty (NULL: nothing new).
    ADD COLUMN dirty_from date,
    -- Wall-clock seconds the run took, reading and loading.
    ADD COLUMN duration_seconds double precision CHECK (duration_seconds >= 0),
    -- Why a failed import failed, one line.
    ADD COLUMN error text,
    ADD CONSTRAINT imports_succeeded_identity_check
        CHECK (status <> 'succeeded' OR (size_bytes IS NOT NULL AND sha256 IS NOT NULL AND kind IS NOT NULL
            AND finished_at IS NOT NULL)),
    ADD CONSTRAINT imports_failed_error_check CHECK (status <> 'failed' OR error IS NOT NULL),
    ADD CONSTRAINT imports_counts_check
        CHECK (samples_inserted + samples_duplicate <= samples_read
            AND samples_accepted + samples_rejected <= samples_read);

-- The import history of a user, newest first.
CREATE INDEX imports_user_started ON imports (user_id, started_at DESC);
