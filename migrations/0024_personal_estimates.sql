-- 0024 personal estimates (issue 24): each night's confidence, each person's need estimate
-- and chronotype as of the last rollup, and the version of these rules the rollup used.
--
-- Confidence is shown, never used: no debt, score or pattern reads these columns. Nights
-- written before this migration have no confidence (NULL) until the rollup rebuilds them,
-- which it does on its next ordinary run because rollup_state.rules_version (0 here) is
-- older than the build's PersonalSleepRules.version.

-- The product of the six factors (docs/sleep-rules.md, "Confidence per night") and the
-- factors themselves; all NULL or all set.
ALTER TABLE nights
    ADD COLUMN confidence double precision CHECK (confidence BETWEEN 0 AND 1),
    ADD COLUMN confidence_coverage double precision CHECK (confidence_coverage BETWEEN 0 AND 1),
    ADD COLUMN confidence_kind text CHECK (confidence_kind IN ('stages', 'asleep_without_stages', 'summary_only')),
    ADD COLUMN confidence_agreement double precision CHECK (confidence_agreement BETWEEN 0 AND 1),
    ADD COLUMN confidence_truncated boolean,
    ADD COLUMN confidence_plausibility double precision CHECK (confidence_plausibility BETWEEN 0 AND 1),
    ADD COLUMN confidence_fragmentation double precision CHECK (confidence_fragmentation BETWEEN 0 AND 1),
    ADD CONSTRAINT nights_confidence_complete CHECK (
        num_nulls(confidence, confidence_coverage, confidence_kind, confidence_agreement, confidence_truncated,
                  confidence_plausibility, confidence_fragmentation) IN (0, 7));

-- One row per person: the need estimate and chronotype as of the rollup's as-of day, as
-- the SleepCore JSON documents (SleepNeedEstimate, Chronotype) plus the headline columns.
CREATE TABLE personal_estimates (
    user_id bigint PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    as_of date NOT NULL,
    rules_version integer NOT NULL CHECK (rules_version >= 1),
    need_seconds integer NOT NULL CHECK (need_seconds > 0),
    need_method text NOT NULL CHECK (need_method IN ('prior', 'free_nights', 'recovery_run')),
    msfsc_seconds integer CHECK (msfsc_seconds >= 0 AND msfsc_seconds < 86400),
    need jsonb NOT NULL,
    chronotype jsonb NOT NULL,
    computed_at timestamptz NOT NULL
);

-- The PersonalSleepRules.version the person's stored results were computed with (0:
-- before issue 24); an older one than the build's means a full rebuild.
ALTER TABLE rollup_state ADD COLUMN rules_version integer NOT NULL DEFAULT 0;
