-- 0025 personal settings (issue 24): each person's work days and what their debt is
-- measured against. The defaults (Monday to Friday, the fixed target) leave every figure
-- exactly as before.
--
--   work_days    ISO weekdays worked as a bit mask, Monday = bit 0 (31 = Monday to Friday);
--                free days are the others (social jet lag, free nights, chronotype).
--   target_mode  'fixed': debt against target_seconds; 'estimated_need': each night against
--                the need estimated from the nights before it (docs/sleep-rules.md).
ALTER TABLE users
    ADD COLUMN work_days smallint NOT NULL DEFAULT 31 CHECK (work_days BETWEEN 0 AND 127),
    ADD COLUMN target_mode text NOT NULL DEFAULT 'fixed' CHECK (target_mode IN ('fixed', 'estimated_need'));
