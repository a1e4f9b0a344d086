-- 0015 imports per person: one waiting upload per person and file, and import numbers
-- of each person's own.
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

-- Import numbers (issue 20, F13). The API and the pages called an import by its job's id,
-- one sequence for everybody, which told anyone with two uploads how many the server had
-- between them. Now each person's imports are numbered 1, 2, 3, ...: uploads (their jobs)
-- and imports made with `sleepledger import` (their imports rows) in one numbering, which
-- the API, the pages and the upload answers use as the import's id. The ids stay the
-- internal keys (the workers', the admin tool's).
--
-- The counter is import_counters.last_number, keyed by user_id like every table of a
-- person's data (no sequence: a distributed database places the row with the person's
-- other rows). A number is taken by one statement in the transaction that stores the job
-- or the imports row (INSERT ... ON CONFLICT (user_id) DO UPDATE ... RETURNING, which
-- also makes the row of a person who has none), so it locks the person's counter row
-- until that transaction ends and numbers of one person never repeat. A command-line
-- import takes its number at its end, just before it commits, so the long import holds
-- the row for a moment only. The imports row a queued upload's import makes has no
-- number (NULL): its job has it.
CREATE TABLE import_counters (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    -- The last number given, 0 before the first.
    last_number bigint NOT NULL DEFAULT 0 CHECK (last_number >= 0)
);

COMMENT ON TABLE import_counters IS
    'The person''s last import number: uploads and command-line imports are numbered 1, 2, 3, ... per person (migration 0015).';

ALTER TABLE import_jobs ADD COLUMN number bigint CHECK (number > 0);
ALTER TABLE imports ADD COLUMN number bigint CHECK (number > 0);

-- Existing imports get numbers in the order they came: each person's jobs (by created_at)
-- and the imports rows no job made (by started_at) together. A failed queued upload's
-- import was not linked to its job (the job names only a done import): a failed imports
-- row of the job's file name that started while the failed job ran is that job's, and
-- gets no number, as such rows do from now on.
CREATE TEMP TABLE import_numbers_0015 ON COMMIT DROP AS
SELECT source, user_id, id, row_number() OVER (PARTITION BY user_id ORDER BY at, source, id) AS number
FROM (
    SELECT 'job' AS source, j.user_id, j.id, j.created_at AS at FROM import_jobs j
    UNION ALL
    SELECT 'run', i.user_id, i.id, i.started_at FROM imports i
    WHERE NOT EXISTS (SELECT FROM import_jobs j WHERE j.user_id = i.user_id AND j.import_id = i.id)
      AND NOT EXISTS (
          SELECT FROM import_jobs j
          WHERE j.user_id = i.user_id AND j.state = 'failed' AND j.import_id IS NULL AND i.status = 'failed'
            AND j.file_name = i.file_name AND i.started_at BETWEEN j.started_at AND j.finished_at)
) made;

UPDATE import_jobs j SET number = n.number
FROM import_numbers_0015 n WHERE n.source = 'job' AND n.user_id = j.user_id AND n.id = j.id;
UPDATE imports i SET number = n.number
FROM import_numbers_0015 n WHERE n.source = 'run' AND n.user_id = i.user_id AND n.id = i.id;

INSERT INTO import_counters (user_id, last_number)
SELECT u.id, coalesce((SELECT max(n.number) FROM import_numbers_0015 n WHERE n.user_id = u.id), 0) FROM users u;

ALTER TABLE import_jobs ALTER COLUMN number SET NOT NULL;
CREATE UNIQUE INDEX import_jobs_user_number ON import_jobs (user_id, number);
CREATE UNIQUE INDEX imports_user_number ON imports (user_id, number);
