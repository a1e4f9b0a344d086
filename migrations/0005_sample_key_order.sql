-- 0005 sleep_samples keyed by wake-order: (user_id, end_at, start_at, source, stage).
--
-- The key names the same five columns as before, so exactly the same samples are
-- duplicates; only the column order changes. Leading with end_at puts a user's samples
-- in time order in the key, which
--   * serves the rollup's "samples of user U ending at or after T" read, so the separate
--     (user_id, end_at) index is dropped: one index fewer to update per inserted sample;
--   * makes the importer's duplicate check and insert touch the right-hand pages of the
--     user's range (an export arrives in time order) and compare a timestamp before any
--     text.
-- Together about a fifth of the server's time merging an import (docs/benchmarks.md,
-- "Importer").

ALTER TABLE sleep_samples DROP CONSTRAINT sleep_samples_pkey;
ALTER TABLE sleep_samples ADD CONSTRAINT sleep_samples_pkey PRIMARY KEY (user_id, end_at, start_at, source, stage);
DROP INDEX sleep_samples_user_end;
