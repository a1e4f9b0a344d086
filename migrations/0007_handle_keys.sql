-- 0007 handle keys: handles are unique, and looked up, by a key computed with Unicode's
-- rules instead of lower(handle).
--
-- lower() depends on the database's ctype: under the C locale (the embedded cluster's) it
-- folds ASCII only, so "Åsa" and "åsa" were two users, and it never normalizes, so "josé"
-- with a precomposed é and "josé" with e + U+0301 were two look-alike users. From now on:
--   * users.handle holds the handle as typed, normalized to NFC;
--   * users.handle_key holds its canonical caseless form (Unicode D145: NFD, full case
--     folding, NFC; LedgerStore's UserHandle.key, computed with ICU), unique: "Åsa",
--     "åsa" and "ÅSA" are one user, "Straße" and "STRASSE" are one, "İsa" and "Isa" are
--     two (docs/operations.md, "Handles").
-- The key is computed in Swift, never in SQL, so it is the same whatever the server's
-- locale, ICU support or version. `sleepledger migrate` computes the keys (and NFC forms)
-- of the existing rows and hands them to this script in the temporary table
-- pg_temp.handle_keys (user_id, handle, handle_key), inside this migration's transaction,
-- after locking users against writes (Migrator, MigrationInputs.swift).
--
-- Existing handles that are one handle under the new rule stop the migration with their
-- user ids (the handles themselves in the DETAIL, shown with SLEEPLEDGER_DEBUG=1): rename
-- all but one of each group and migrate again (docs/operations.md, "Handles").

DO $$
BEGIN
    IF to_regclass('pg_temp.handle_keys') IS NULL THEN
        RAISE EXCEPTION 'migration 0007 needs the handle keys that sleepledger migrate computes: apply it with sleepledger migrate, not by hand';
    END IF;
END
$$;

ALTER TABLE users ADD COLUMN handle_key text;

-- The old unique index on lower(handle) goes first: writing the NFC forms would trip it
-- for two spellings of one handle ("josé" composed and decomposed), which the check
-- below reports with every other collision instead.
DROP INDEX users_handle_key;

UPDATE users u SET handle = k.handle, handle_key = k.handle_key
FROM pg_temp.handle_keys k
WHERE k.user_id = u.id;

DO $$
DECLARE
    groups integer;
    ids text;
    handles text;
BEGIN
    IF EXISTS (SELECT FROM users WHERE handle_key IS NULL) THEN
        RAISE EXCEPTION 'a users row was added while the handle keys were computed; migrate again';
    END IF;
    SELECT count(*),
           string_agg(members.ids, '; ' ORDER BY members.first_id),
           string_agg(members.handles, '; ' ORDER BY members.first_id)
    INTO groups, ids, handles
    FROM (
        SELECT min(id) AS first_id,
               'users ' || string_agg(id::text, ', ' ORDER BY id) AS ids,
               string_agg(format('%s %L', id, handle), ' = ' ORDER BY id) AS handles
        FROM users
        GROUP BY handle_key
        HAVING count(*) > 1
    ) members;
    IF groups > 0 THEN
        RAISE EXCEPTION USING
            ERRCODE = 'unique_violation',
            MESSAGE = format('%s group(s) of users have handles that are one handle under the new rule '
                || '(Unicode NFC and full case folding): %s. Rename all but one user of each group '
                || '(docs/operations.md, Handles), then migrate again', groups, ids),
            DETAIL = 'one handle: ' || handles,
            HINT = 'UPDATE users SET handle = ''new-handle'' WHERE id = N; then sleepledger migrate';
    END IF;
END
$$;

ALTER TABLE users ALTER COLUMN handle_key SET NOT NULL;

-- The key replaces lower(handle) as the unique index, under the same name, so a taken
-- handle is still reported as constraint users_handle_key.
CREATE UNIQUE INDEX users_handle_key ON users (handle_key);

-- Handles count characters as people see them (at most 64, checked by UserService), not
-- code points: "q̃" is one character of two code points. The database keeps only a
-- backstop on bytes, wide enough for every handle the old 64-code-point rule allowed
-- after NFC. An all-ASCII handle's key must be its ASCII lower case: a row written
-- without UserHandle.key is caught here (COLLATE "C": lower() of ASCII in any locale).
ALTER TABLE users
    DROP CONSTRAINT users_handle_check,
    ADD CONSTRAINT users_handle_check CHECK (octet_length(handle) BETWEEN 1 AND 1024),
    ADD CONSTRAINT users_handle_key_check CHECK (
        octet_length(handle_key) BETWEEN 1 AND 4096
        AND (handle ~ '[^\x01-\x7f]' OR handle_key = lower(handle COLLATE "C"))
    );

COMMENT ON COLUMN users.handle IS 'The handle as typed, NFC (migration 0007).';
COMMENT ON COLUMN users.handle_key IS
    'Canonical caseless form of handle (NFD, full case folding, NFC), computed by SleepLedger with ICU; unique (migration 0007).';
