-- 0004 sleep_samples.import_id becomes a plain audit link, without a foreign key.
--
-- The foreign key (user_id, import_id) -> imports (user_id, id) cost one index probe of
-- imports per inserted sample: about a fifth of the server's time merging an import
-- (docs/benchmarks.md, "Importer"). It guarded nothing the importer does not already
-- guarantee: import_id is written only by `sleepledger import`, inside the transaction
-- that inserted that imports row, so the row exists whenever a sample names it. imports
-- rows are removed only with their user (ON DELETE CASCADE from users), which removes
-- the user's samples too; deleting single imports rows is not a product feature. If an
-- operator deletes one by hand, the samples stay and their import_id names a run that
-- is no longer listed. user_id -> users stays.

ALTER TABLE sleep_samples DROP CONSTRAINT sleep_samples_user_id_import_id_fkey;

COMMENT ON COLUMN sleep_samples.import_id IS
    'The imports row (same user_id) of the run that first stored this sample; written in that run''s transaction. Not a foreign key (migration 0004).';
