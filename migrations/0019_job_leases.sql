-- 0019 job leases: a claimed job is alive while its lease runs, not while a session holds
-- an advisory lock (issue 21, item 5).
--
-- Until now a worker's claim (migration 0010) was a session advisory lock, and a running
-- job whose lock no other session saw in pg_locks was claimable again. That ties a claim
-- to one session on one node: behind a connection pooler the lock stays with a pooled
-- session, and on a distributed database (Citus) pg_locks shows only the node's own
-- locks. Now a claim is a lease: the claiming worker's random token (claim_token) and the
-- time the claim lapses (claimed_until). The worker renews it while it imports (every
-- third of the lease, in short transactions of a session of its own); a running job whose
-- lease lapsed (the worker crashed, hung or lost its connections) is claimable again, so
-- after a crash a job waits at most one lease. Finishing or requeuing a job updates it only
-- while the claim is still the caller's (its token), so a worker whose lease lapsed and
-- whose job another worker took cannot end it.
--
-- Time comes from now() or from parameters, never from clock_timestamp() (a distributed
-- database refuses volatile functions in UPDATEs); the token is made by the worker and
-- passed in for the same reason.
--
-- The table stays one table on one node by design (docs/scaling.md, "The queue"): its
-- claim orders all users' waiting jobs oldest first with FOR UPDATE SKIP LOCKED.

ALTER TABLE import_jobs ADD COLUMN claim_token uuid;
ALTER TABLE import_jobs ADD COLUMN claimed_until timestamptz;

-- Jobs running now were claimed by advisory locks, which the new claim no longer sees:
-- they get one lease from now under a token no worker has, after which another worker
-- may take them.
UPDATE import_jobs SET claim_token = '00000000-0000-0000-0000-000000000000', claimed_until = now() + interval '60 seconds'
WHERE state = 'running';

ALTER TABLE import_jobs DROP COLUMN worker_pid;
ALTER TABLE import_jobs ADD CONSTRAINT import_jobs_lease_check
    CHECK (state <> 'running' OR (claim_token IS NOT NULL AND claimed_until IS NOT NULL));

DROP FUNCTION sleepledger_claim_import_job(text, boolean);

-- Claims the oldest job a worker on `host` can run (spool files on that host, or on any
-- host when the spool folder is shared: `any_host`): a waiting job, or a running one whose
-- lease lapsed. Skips jobs other workers are claiming at this moment, and marks the job
-- running under `token` until now() plus `lease_seconds`. Returns nothing when there is none.
CREATE FUNCTION sleepledger_claim_import_job(host text, any_host boolean, token uuid, lease_seconds double precision)
RETURNS TABLE (user_id bigint, id bigint)
LANGUAGE sql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    UPDATE public.import_jobs j
    SET state = 'running', started_at = now(), claim_token = token,
        claimed_until = now() + make_interval(secs => lease_seconds), attempts = j.attempts + 1
    WHERE (j.user_id, j.id) = (
        SELECT c.user_id, c.id FROM public.import_jobs c
        WHERE c.state IN ('queued', 'running')
          AND (any_host OR c.spool_host = host)
          AND (c.state = 'queued' OR c.claimed_until < now())
        ORDER BY c.created_at, c.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
    RETURNING j.user_id, j.id
$$;

REVOKE ALL ON FUNCTION sleepledger_claim_import_job(text, boolean, uuid, double precision) FROM PUBLIC;
