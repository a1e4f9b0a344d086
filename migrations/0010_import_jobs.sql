-- 0010 import jobs: uploads the server received and queued for its workers.
--
-- An upload is spooled to a file on the receiving host and queued here. A worker claims
-- a job through sleepledger_claim_import_job, which records the claiming session's
-- backend pid and takes a session advisory lock (class 1397508674, "SLJB", and the job
-- id) that the session holds until it finishes the job. A running job whose lock is no
-- longer held by that pid (the worker crashed or lost its connection) is claimable
-- again; pg_locks, unlike pg_stat_activity, shows every session's locks to every role.
-- The import and the job's end are one transaction, so a job that runs twice stores its
-- samples once.

CREATE TABLE import_jobs (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    id bigint GENERATED ALWAYS AS IDENTITY,
    state text NOT NULL DEFAULT 'queued' CHECK (state IN ('queued', 'running', 'done', 'failed', 'cancelled')),
    -- The name the upload gave (multipart filename), or "upload".
    file_name text NOT NULL CHECK (char_length(file_name) BETWEEN 1 AND 255),
    -- The Content-Type of the upload (of the file part for multipart).
    content_type text,
    size_bytes bigint NOT NULL CHECK (size_bytes >= 0),
    -- SHA-256 of the uploaded bytes, 64 lowercase hex digits.
    sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
    -- Where the spooled bytes are: the host that received them and the file's path there.
    spool_host text NOT NULL,
    spool_path text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    started_at timestamptz,
    finished_at timestamptz,
    -- The backend pid of the worker session that claimed it.
    worker_pid integer,
    attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
    -- The imports row the job produced (succeeded or failed).
    import_id bigint,
    -- Why it failed, one line.
    error text,
    PRIMARY KEY (user_id, id),
    CONSTRAINT import_jobs_finished_check CHECK ((state IN ('done', 'failed', 'cancelled')) = (finished_at IS NOT NULL)),
    CONSTRAINT import_jobs_failed_error_check CHECK (state <> 'failed' OR error IS NOT NULL)
);

-- The queue: oldest first, only jobs that may still need a worker.
CREATE INDEX import_jobs_waiting ON import_jobs (created_at, id) WHERE state IN ('queued', 'running');
-- A user's jobs, newest first; and the same bytes uploaded again.
CREATE INDEX import_jobs_user_created ON import_jobs (user_id, created_at DESC);
CREATE INDEX import_jobs_user_sha256 ON import_jobs (user_id, sha256);

-- Claims the oldest job a worker on `host` can run (spool files on that host, or on any
-- host when the spool folder is shared: `any_host`), skipping jobs other workers hold,
-- and marks it running for the calling session. Returns nothing when there is none.
CREATE FUNCTION sleepledger_claim_import_job(host text, any_host boolean)
RETURNS TABLE (user_id bigint, id bigint)
LANGUAGE plpgsql SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
DECLARE
    claimed_user bigint;
    claimed_id bigint;
BEGIN
    UPDATE public.import_jobs j
    SET state = 'running', started_at = now(), worker_pid = pg_backend_pid(), attempts = j.attempts + 1
    WHERE (j.user_id, j.id) = (
        SELECT c.user_id, c.id FROM public.import_jobs c
        WHERE c.state IN ('queued', 'running')
          AND (any_host OR c.spool_host = host)
          AND (c.state = 'queued' OR NOT EXISTS (
              SELECT FROM pg_locks l
              WHERE l.locktype = 'advisory' AND l.classid = 1397508674 AND l.objsubid = 2
                AND l.objid = (c.id % 2147483647)::oid AND l.pid = c.worker_pid AND l.granted))
        ORDER BY c.created_at, c.id
        LIMIT 1
        FOR UPDATE SKIP LOCKED)
    RETURNING j.user_id, j.id INTO claimed_user, claimed_id;
    IF claimed_id IS NOT NULL THEN
        -- Held by this session until the worker releases it or the session ends.
        PERFORM pg_advisory_lock(1397508674, (claimed_id % 2147483647)::integer);
        user_id := claimed_user;
        id := claimed_id;
        RETURN NEXT;
    END IF;
END
$$;

REVOKE ALL ON FUNCTION sleepledger_claim_import_job(text, boolean) FROM PUBLIC;

-- The spool files on `host` that jobs still need (waiting or running), for the sweep
-- that removes files left behind by a crash.
CREATE FUNCTION sleepledger_spool_files_in_use(host text)
RETURNS SETOF text
LANGUAGE sql STABLE SECURITY DEFINER
SET search_path = public, pg_temp
AS $$
    SELECT j.spool_path FROM public.import_jobs j WHERE j.spool_host = host AND j.state IN ('queued', 'running')
$$;

REVOKE ALL ON FUNCTION sleepledger_spool_files_in_use(text) FROM PUBLIC;
