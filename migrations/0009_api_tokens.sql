-- 0009 personal API tokens: what the upload server accepts in `Authorization: Bearer`.
--
-- A token is printed once as sl_<id>_<secret>: <id> is a random 63-bit number in 16 hex
-- digits, <secret> 32 random bytes in base64url. Only SHA-256 of the secret bytes is
-- stored. The server looks a token up by its id before it knows whose it is, through
-- sleepledger_token_credentials (SECURITY DEFINER: it returns the owner, the scope and the
-- stored hash, nothing else), then compares hashes in constant time.

CREATE TABLE api_tokens (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id bigint NOT NULL CHECK (id > 0),
    -- What the person called it ("phone", "laptop"); shown by `token list`.
    name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 64),
    -- ingest: upload and read import status; full: everything the API offers.
    scope text NOT NULL CHECK (scope IN ('ingest', 'full')),
    secret_sha256 bytea NOT NULL CHECK (octet_length(secret_sha256) = 32),
    created_at timestamptz NOT NULL DEFAULT now(),
    last_used_at timestamptz,
    revoked_at timestamptz,
    PRIMARY KEY (user_id, id)
);

-- Look-ups by the id in the token (not unique on its own: ids are random, and keys of
-- user data lead with user_id so the table can be distributed by user).
CREATE INDEX api_tokens_id ON api_tokens (id);

CREATE FUNCTION sleepledger_token_credentials(token_id bigint)
RETURNS TABLE (user_id bigint, scope text, secret_sha256 bytea)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT t.user_id, t.scope, t.secret_sha256 FROM public.api_tokens t
    WHERE t.id = token_id AND t.revoked_at IS NULL
$$;

REVOKE ALL ON FUNCTION sleepledger_token_credentials(bigint) FROM PUBLIC;
