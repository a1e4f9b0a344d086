-- 0012 queue metrics: the import queue's depth and age for the server's /metrics.
--
-- The server's role sees import_jobs only through row-level security, one user at a
-- time, so it cannot count the whole queue itself. This SECURITY DEFINER function
-- (granted to sleepledger_server by roles.sql, like every sleepledger_* definer
-- function) returns three numbers across all users and nothing else: no user, no file
-- name, no id. It reads only the partial index import_jobs_waiting's rows.

CREATE FUNCTION sleepledger_import_queue_statistics()
RETURNS TABLE (queued bigint, running bigint, oldest_queued_seconds double precision)
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT count(*) FILTER (WHERE j.state = 'queued'),
           count(*) FILTER (WHERE j.state = 'running'),
           coalesce(extract(epoch FROM now() - min(j.created_at) FILTER (WHERE j.state = 'queued')),
                    0)::double precision
    FROM public.import_jobs j
    WHERE j.state IN ('queued', 'running')
$$;

REVOKE ALL ON FUNCTION sleepledger_import_queue_statistics() FROM PUBLIC;
