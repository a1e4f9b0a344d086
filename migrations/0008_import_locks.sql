-- 0008 import_locks: one row per user, the user's import lock.
--
-- Imports of one user run one after the other: an import locks its user's row here with
-- SELECT ... FOR UPDATE at the start of its transaction and holds it until it commits or
-- rolls back (the loader's merge relies on it: no other transaction adds the user's
-- samples while a batch is checked). `sleepledger user remove` takes the same lock
-- before deleting, so it waits for a running import and says so.
--
-- Until now this was a transaction-level advisory lock. Any role that can connect may
-- take any advisory lock, so the read-only role (sleepledger_readonly) could block a
-- user's imports with pg_advisory_lock. A row lock needs the UPDATE privilege on the
-- table, which sleepledger_readonly does not have (roles.sql grants it SELECT only).
--
-- A table of its own, not the users or rollup_state row: nothing else ever locks these
-- rows, so an import does not wait for, or hold up, `user set` (which locks the users
-- row), the foreign-key checks of other writers (KEY SHARE on the users row) or the
-- rollup (which claims rollup_state rows FOR UPDATE SKIP LOCKED, and would skip a user
-- for as long as an import ran).
--
-- Follows the foundation's rules: user_id is the key and cascades on delete.

CREATE TABLE import_locks (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE
);

COMMENT ON TABLE import_locks IS
    'The per-user import lock: imports and user removal lock the user''s row FOR UPDATE (migration 0008). No data.';

INSERT INTO import_locks (user_id) SELECT id FROM users;
