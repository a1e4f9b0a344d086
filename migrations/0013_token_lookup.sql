-- 0013 token look-up: what the server asks of every request, in one cheap round trip.
--
-- sleepledger_token_credentials (0009) also returns when the token was last used, so the
-- server records a use (a transaction of four statements) only when the last one is more
-- than a minute old instead of on every request. It is PL/pgSQL now: a SQL function that
-- is SECURITY DEFINER is never inlined, and its query was planned again on every call;
-- PL/pgSQL keeps the plan for the session. Still SECURITY DEFINER and still nothing else
-- than the owner, the scope, the stored hash and the last use of the valid tokens with
-- that id. Its return type changes, so it is dropped and created again; roles.sql gives
-- it to sleepledger_owner and grants it to sleepledger_server, as every sleepledger_*
-- definer function, and `sleepledger migrate` applies roles.sql after the migrations.

DROP FUNCTION sleepledger_token_credentials(bigint);

CREATE FUNCTION sleepledger_token_credentials(token_id bigint)
RETURNS TABLE (user_id bigint, scope text, secret_sha256 bytea, last_used_at timestamptz)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
BEGIN
    RETURN QUERY
        SELECT t.user_id, t.scope, t.secret_sha256, t.last_used_at FROM public.api_tokens t
        WHERE t.id = token_id AND t.revoked_at IS NULL;
END
$$;

REVOKE ALL ON FUNCTION sleepledger_token_credentials(bigint) FROM PUBLIC;
