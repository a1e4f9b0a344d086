-- 0011 import kind hae: a Health Auto Export JSON payload (the iOS app's REST API
-- automation, pushed to POST /api/v1/ingest/health-auto-export or imported as a file) is
-- recorded with kind 'hae' beside 'zip', 'xml' and 'csv'. The check was declared on the
-- column in 0001, so PostgreSQL named it imports_kind_check.

ALTER TABLE imports
    DROP CONSTRAINT imports_kind_check,
    ADD CONSTRAINT imports_kind_check CHECK (kind IN ('zip', 'xml', 'csv', 'hae'));
