-- 0016 web session addresses: what a person sees of their own sessions.
--
-- The settings page and GET /api/v1/me list a person's web sessions (when each started,
-- when it was last used and from which address) so they can tell a stranger's session
-- from their own and end the others. A session records the client address the server saw
-- at sign-in and again whenever it records a use (at most once a minute, with
-- last_used_at). Sessions made before this migration have none until their next recorded
-- use. The address is the person's own data: row-level security covers it as the rest of
-- the row, and sleepledger_web_session still returns nothing but the user id, last use and
-- end of a session.

ALTER TABLE web_sessions ADD COLUMN last_used_address text CHECK (octet_length(last_used_address) <= 128);
