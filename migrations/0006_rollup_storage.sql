-- 0006 rollup storage: nights.asleep_intervals as a flat bigint[] instead of JSONB, and
-- lz4 compression for the summaries' JSONB (below).
--
-- The nightly rollup reads up to ten years of a user's nights to compute the summaries
-- (the 10y horizon), asleep intervals included. As JSONB, every interval bound was a
-- numeric inside the document: the server turned each one back into text (jsonb_out,
-- numeric_out) and the runner scanned the JSON. As bigint[] the server sends
-- `{start,end,start,end,...}` through the plain integer output function and the runner
-- reads a list of integers (docs/benchmarks.md, "Rollup").
--
-- The column holds the same data: the night's asleep intervals in order, each as its
-- start and end in epoch seconds, flattened ([[s1, e1], [s2, e2]] becomes {s1,e1,s2,e2};
-- no intervals is '{}'). One row per night with every SleepCore.Night field is unchanged;
-- stage_segments stays JSONB (it is read for the last two nights only).

CREATE FUNCTION pg_temp.flattened_intervals(intervals jsonb) RETURNS bigint[]
LANGUAGE sql IMMUTABLE STRICT AS $$
    SELECT coalesce(array_agg(bound.value::bigint ORDER BY pair.position, bound.position), '{}')
    FROM jsonb_array_elements(intervals) WITH ORDINALITY AS pair (value, position),
         jsonb_array_elements_text(pair.value) WITH ORDINALITY AS bound (value, position)
$$;

ALTER TABLE nights
    ALTER COLUMN asleep_intervals TYPE bigint[] USING pg_temp.flattened_intervals(asleep_intervals),
    -- Start and end pairs in a one-dimensional array without NULLs.
    ADD CONSTRAINT nights_asleep_intervals_pairs CHECK (
        cardinality(asleep_intervals) % 2 = 0
        AND coalesce(array_ndims(asleep_intervals), 1) = 1
        AND array_position(asleep_intervals, NULL) IS NULL
    );

DROP FUNCTION pg_temp.flattened_intervals(jsonb);

-- Summaries: compress the JSONB documents with lz4 where the server supports it. Most
-- summaries are over the 2 kB TOAST threshold, and pglz compressing six of them per user
-- was about a tenth of the server's work in a nightly refresh; lz4 compresses several
-- times faster. Stored values, the JSONB type and what readers see are unchanged; on a
-- server built without lz4 the column keeps the default (pglz).
DO $$
BEGIN
    IF EXISTS (
        SELECT FROM pg_settings WHERE name = 'default_toast_compression' AND 'lz4' = ANY (enumvals)
    ) THEN
        ALTER TABLE summaries ALTER COLUMN summary SET COMPRESSION lz4;
    END IF;
END
$$;
