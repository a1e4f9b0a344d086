-- 0015 imports per person: one waiting upload per person and file.
--
-- The server looked for an earlier job of the same bytes and then inserted its own, so
-- uploads of one file that arrived together each found none and each made a job (issue
-- 20, F9). Now a person has at most one queued or running job per SHA-256: the partial
-- unique index below decides between simultaneous inserts, and the one that loses answers
-- with the earlier job, as a later upload of the same bytes always did.
--
-- Jobs that already break the rule (the later of each pair made by that race) are
-- cancelled first, keeping the one a worker runs, else the oldest: their imports would add
-- nothing the kept one does not.

UPDATE import_jobs j
SET state = 'cancelled', finished_at = now(),
    error = 'cancelled by migration 0015: the same file was queued earlier'
FROM (
    SELECT user_id, id,
           row_number() OVER (PARTITION BY user_id, sha256 ORDER BY state = 'running' DESC, created_at, id) AS rank
    FROM import_jobs
    WHERE state IN ('queued', 'running')
) duplicate
WHERE j.user_id = duplicate.user_id AND j.id = duplicate.id AND duplicate.rank > 1;

CREATE UNIQUE INDEX import_jobs_pending_sha256 ON import_jobs (user_id, sha256) WHERE state IN ('queued', 'running');
