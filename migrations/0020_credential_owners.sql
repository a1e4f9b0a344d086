-- 0020 credential owners: what a token id or a session hash belongs to, in two small
-- shared tables (issue 21, item 6).
--
-- The server finds an API token by the id in it, and a web session by the hash of its
-- cookie, before it knows whose they are. api_tokens and web_sessions are a person's data,
-- keyed by user_id, so on a database distributed by user (Citus) a look-up by id or hash
-- alone would ask every shard. These tables map the id or the hash to its user and nothing
-- else; they are reference tables on Citus (a copy on every node: deploy/citus/tables.conf),
-- so a look-up reads the owner here and then the credential on the owner's shard only.
-- The secret's hash stays in api_tokens and web_sessions; a session's hash is here too
-- because it is the key (SHA-256 of 32 random bytes: the cookie cannot be found from it).
--
-- The server writes a row here in the transaction that stores the token or the session,
-- as the user (row-level security applies as to every table with a user_id column), and
-- removes a session's row when the session ends. A row whose credential is gone is
-- harmless: the credential itself is always read and checked after the owner. Rows go
-- with the account (ON DELETE CASCADE). The definer look-ups below read the owner first,
-- then the credential by user_id and id or hash.

CREATE TABLE api_token_owners (
    token_id bigint PRIMARY KEY,
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE
);

COMMENT ON TABLE api_token_owners IS
    'Which user an API token id belongs to: the look-up before the user is known (migration 0020). A reference table on Citus.';

CREATE TABLE web_session_owners (
    secret_sha256 bytea PRIMARY KEY CHECK (octet_length(secret_sha256) = 32),
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE
);

COMMENT ON TABLE web_session_owners IS
    'Which user a web session (by the hash of its id) belongs to: the look-up before the user is known (migration 0020). A reference table on Citus.';

CREATE INDEX api_token_owners_user ON api_token_owners (user_id);
CREATE INDEX web_session_owners_user ON web_session_owners (user_id);

INSERT INTO api_token_owners (token_id, user_id) SELECT id, user_id FROM api_tokens ON CONFLICT DO NOTHING;
INSERT INTO web_session_owners (secret_sha256, user_id) SELECT secret_sha256, user_id FROM web_sessions
ON CONFLICT DO NOTHING;

DROP FUNCTION sleepledger_token_credentials(bigint);

CREATE FUNCTION sleepledger_token_credentials(token_id bigint)
RETURNS TABLE (user_id bigint, scope text, secret_sha256 bytea, last_used_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
    owner bigint;
BEGIN
    SELECT o.user_id INTO owner FROM public.api_token_owners o WHERE o.token_id = sleepledger_token_credentials.token_id;
    IF owner IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY
        SELECT t.user_id, t.scope, t.secret_sha256, t.last_used_at FROM public.api_tokens t
        WHERE t.user_id = owner AND t.id = sleepledger_token_credentials.token_id AND t.revoked_at IS NULL;
END
$$;

REVOKE ALL ON FUNCTION sleepledger_token_credentials(bigint) FROM PUBLIC;

DROP FUNCTION sleepledger_web_session(bytea);

CREATE FUNCTION sleepledger_web_session(secret bytea)
RETURNS TABLE (user_id bigint, last_used_at timestamptz, expires_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
    owner bigint;
BEGIN
    SELECT o.user_id INTO owner FROM public.web_session_owners o WHERE o.secret_sha256 = secret;
    IF owner IS NULL THEN
        RETURN;
    END IF;
    RETURN QUERY
        SELECT s.user_id, s.last_used_at, s.expires_at FROM public.web_sessions s
        WHERE s.user_id = owner AND s.secret_sha256 = secret;
END
$$;

REVOKE ALL ON FUNCTION sleepledger_web_session(bytea) FROM PUBLIC;

-- The hash index served the look-up by hash alone, which now goes through the owners.
DROP INDEX web_sessions_secret;
DROP INDEX api_tokens_id;

-- The credentials of token token_id of user owner whose stored hash is secret, read by the
-- server as that user (not a definer function: row-level security holds it to the user
-- its transaction names), or SQLSTATE 28000 when there is no such valid token. The server
-- runs it right after naming the user, before the reads of the same transaction, so a
-- wrong or revoked token stops the transaction before anything is read. (Comparing the hash
-- in SQL tells a timing observer at most something about a SHA-256 of a secret.)
CREATE FUNCTION sleepledger_own_token(owner bigint, token_id bigint, secret bytea)
RETURNS TABLE (user_id bigint, scope text, secret_sha256 bytea, last_used_at timestamptz)
LANGUAGE plpgsql STABLE
SET search_path = public, pg_temp
AS $$
BEGIN
    RETURN QUERY
        SELECT t.user_id, t.scope, t.secret_sha256, t.last_used_at FROM public.api_tokens t
        WHERE t.user_id = owner AND t.id = token_id AND t.secret_sha256 = secret AND t.revoked_at IS NULL;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'no valid token matches' USING ERRCODE = 'invalid_authorization_specification';
    END IF;
END
$$;

REVOKE ALL ON FUNCTION sleepledger_own_token(bigint, bigint, bytea) FROM PUBLIC;
