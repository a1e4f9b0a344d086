-- 0003 rollup: nights, naps and horizon summaries computed by `sleepledger rollup`, and
-- the bookkeeping the rollup needs in rollup_state.
--
-- Every table follows the foundation's rules: user_id first in every key, cascade on
-- delete. Results of one user are replaced in one transaction by the rollup, so a reader
-- sees either the previous or the new results of a user, never a mix.

-- One main sleep per user and wake day, one column per SleepCore.Night field.
CREATE TABLE nights (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    wake_day date NOT NULL,
    time_zone text NOT NULL,
    bedtime timestamptz NOT NULL,
    onset timestamptz NOT NULL,
    wake timestamptz NOT NULL,
    asleep_seconds integer NOT NULL CHECK (asleep_seconds >= 0),
    time_in_bed_seconds integer NOT NULL CHECK (time_in_bed_seconds >= 0),
    awake_seconds integer NOT NULL CHECK (awake_seconds >= 0),
    wake_ups integer NOT NULL CHECK (wake_ups >= 0),
    latency_seconds integer CHECK (latency_seconds >= 0),
    deep_seconds integer NOT NULL CHECK (deep_seconds >= 0),
    rem_seconds integer NOT NULL CHECK (rem_seconds >= 0),
    core_seconds integer NOT NULL CHECK (core_seconds >= 0),
    unspecified_seconds integer NOT NULL CHECK (unspecified_seconds >= 0),
    efficiency double precision NOT NULL CHECK (efficiency >= 0 AND efficiency <= 1),
    has_stage_data boolean NOT NULL,
    source text NOT NULL,
    fragment_count integer NOT NULL CHECK (fragment_count >= 1),
    set_aside_sources text[] NOT NULL DEFAULT '{}',
    -- [[start, end], ...] in epoch seconds, sorted and disjoint.
    asleep_intervals jsonb NOT NULL,
    -- [[stage, start, end], ...] in epoch seconds, stage as SleepStage raw value.
    stage_segments jsonb NOT NULL,
    PRIMARY KEY (user_id, wake_day),
    CHECK (onset < wake)
);

-- Sleep that belongs to no night.
CREATE TABLE naps (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    start_at timestamptz NOT NULL,
    end_at timestamptz NOT NULL,
    wake_day date NOT NULL,
    time_zone text NOT NULL,
    source text NOT NULL,
    asleep_seconds integer NOT NULL CHECK (asleep_seconds >= 0),
    PRIMARY KEY (user_id, start_at),
    CHECK (end_at > start_at)
);
CREATE INDEX naps_user_wake_day ON naps (user_id, wake_day);

-- One summary per user and horizon: the SleepCore.Summary JSON (docs/summary-json.md)
-- plus the headline columns the admin CLI sorts and filters by.
CREATE TABLE summaries (
    user_id bigint NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    horizon text NOT NULL CHECK (horizon IN ('daily', 'weekly', 'monthly', 'yearly', '5y', '10y')),
    as_of date NOT NULL,
    debt_seconds bigint NOT NULL,
    net_balance_seconds bigint NOT NULL,
    severity text NOT NULL CHECK (severity IN ('normal', 'concerning', 'critical')),
    score integer NOT NULL CHECK (score BETWEEN 0 AND 100),
    grade text NOT NULL,
    tracked_nights integer NOT NULL CHECK (tracked_nights >= 0),
    last_night_wake_day date,
    last_night_asleep_seconds integer,
    summary jsonb NOT NULL,
    computed_at timestamptz NOT NULL,
    PRIMARY KEY (user_id, horizon)
);
CREATE INDEX summaries_horizon_debt ON summaries (horizon, debt_seconds DESC);

-- Rollup bookkeeping (dirty_from and summaries_stale come from 0001):
--   last_as_of      the as-of day of the user's stored summaries (NULL: never rolled up);
--   last_rollup_at  when the user's results were last written;
--   last_error      the last failure's message, cleared by the next success;
--   failed_at       when that failure happened;
--   failure_count   consecutive failures;
--   nights_time_zone the user's zone the stored nights were built with (samples without a
--                   zone of their own are placed in it); a different users.time_zone
--                   means the nights are rebuilt from scratch.
ALTER TABLE rollup_state
    ADD COLUMN nights_time_zone text,
    ADD COLUMN last_as_of date,
    ADD COLUMN last_rollup_at timestamptz,
    ADD COLUMN last_error text,
    ADD COLUMN failed_at timestamptz,
    ADD COLUMN failure_count integer NOT NULL DEFAULT 0;
