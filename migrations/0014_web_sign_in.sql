-- 0014 sign-in for the web pages: passwords and sessions.
--
-- A password is stored as an Argon2id hash in libargon2's encoded form,
-- $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>, which records the parameters
-- and the per-user random salt beside the hash; one row per user who has a password.
-- The read-only role cannot read it (roles.sql revokes it): support staff have no use
-- for password hashes.
--
-- A web session is a row holding SHA-256 of a random 32-byte session id (the cookie
-- holds the id itself, the database never does), with when it was created, last used and
-- when it ends at the latest. Keys lead with user_id like every user-data table; the
-- session look-up goes through the non-unique index on the hash.
--
-- The server signs a person in before it knows who they are, through two SECURITY
-- DEFINER functions (granted to sleepledger_server by roles.sql, like every sleepledger_*
-- definer function): sleepledger_password_credentials(handle key) returns the user id and
-- the stored hash, sleepledger_web_session(hash) the user id, last use and end of a
-- session; nothing else. Everything after that runs as the user, under row-level
-- security.

CREATE TABLE user_passwords (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    password_hash text NOT NULL CHECK (password_hash LIKE '$argon2id$v=19$%' AND octet_length(password_hash) <= 512),
    set_at timestamptz NOT NULL
);

CREATE TABLE web_sessions (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    secret_sha256 bytea NOT NULL CHECK (octet_length(secret_sha256) = 32),
    created_at timestamptz NOT NULL,
    last_used_at timestamptz NOT NULL,
    expires_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, secret_sha256)
);

-- Look-ups by the hash of the cookie's session id, before the user is known.
CREATE INDEX web_sessions_secret ON web_sessions (secret_sha256);

CREATE FUNCTION sleepledger_password_credentials(key text)
RETURNS TABLE (user_id bigint, password_hash text)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT u.id, p.password_hash FROM public.users u JOIN public.user_passwords p ON p.user_id = u.id
    WHERE u.handle_key = key
$$;

REVOKE ALL ON FUNCTION sleepledger_password_credentials(text) FROM PUBLIC;

CREATE FUNCTION sleepledger_web_session(secret bytea)
RETURNS TABLE (user_id bigint, last_used_at timestamptz, expires_at timestamptz)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT s.user_id, s.last_used_at, s.expires_at FROM public.web_sessions s WHERE s.secret_sha256 = secret
$$;

REVOKE ALL ON FUNCTION sleepledger_web_session(bytea) FROM PUBLIC;
