-- The data and the join matrix of the nearest-direction suites
-- (asof_nearest, asof_nearest_merge), created in the schema first on
-- search_path.

-- Versions at multiples of 4 minutes (per key no two at the same time),
-- with NULL keys, a NULL time in a key that has other versions, and keys
-- with a single version ('solo') or a single NULL-time version ('nulltime')
CREATE TABLE vers (k text, k2 int, t timestamp, tz timestamptz, d date,
                   i4 int4, i8 int8, i2 int2, v int, note text);
INSERT INTO vers
SELECT 'k' || (g % 30), g % 2,
       timestamp '2024-01-01' + g * interval '4 minutes',
       timestamptz '2024-01-01 00:00+00' + g * interval '4 minutes',
       date '2000-01-01' + 4 * g,
       4 * g, 4 * g::int8 - 40000, (4 * (g % 8000))::int2,
       g, CASE WHEN g % 7 = 0 THEN NULL ELSE 'n' || (g % 5) END
FROM generate_series(1, 1500) g;
INSERT INTO vers VALUES
  (NULL, 0, '2024-01-01 20:00', '2024-01-01 20:00+00', '2010-01-01', 100, 100, 100, -1, 'null key'),
  ('k1', 1, NULL, NULL, NULL, NULL, NULL, NULL, -2, 'null time'),
  ('solo', 0, '2024-01-02 00:00', '2024-01-02 00:00+00', '2001-01-01', 2000, 2000, 2000, -3, 'solo'),
  ('nulltime', 0, NULL, NULL, NULL, NULL, NULL, NULL, -4, 'only null');
-- Outer rows at odd minutes: never halfway between two versions; NULL
-- times only in keys with at most one version
CREATE TABLE obs (id int, k text, k2 int, t timestamp, tz timestamptz, d date,
                  i4 int4, i8 int8, i2 int2, amount int);
INSERT INTO obs
SELECT g, CASE WHEN g % 50 = 0 THEN NULL ELSE 'k' || (g * 7 % 33) END,
       g % 2,
       timestamp '2023-12-31 23:01' + ((g * 7919) % 6200) * interval '1 minute',
       timestamptz '2023-12-31 23:01+00' + ((g * 7919) % 6200) * interval '1 minute',
       date '1999-12-21' + (g * 7919) % 6200,
       (g * 7919) % 6200 - 19, (g * 7919) % 6200 - 40019, ((g * 7919) % 6200 - 19)::int2,
       g % 13
FROM generate_series(1, 400) g;
UPDATE obs SET d = d + 1 WHERE (d - date '2000-01-01') % 2 = 0;
INSERT INTO obs VALUES
  (1001, 'k1', 1, '2024-01-01 02:00', '2024-01-01 02:00+00', '2000-01-31', 120, -39880, 120, 1),
  (1002, 'solo', 0, NULL, NULL, NULL, NULL, NULL, NULL, 2),
  (1003, 'nulltime', 0, '2024-01-01 05:01', '2024-01-01 05:01+00', '2000-02-01', 7, 7, 7, 3),
  (1004, 'nulltime', 0, NULL, NULL, NULL, NULL, NULL, NULL, 4),
  (1005, 'solo', 0, '2030-01-01', '2030-01-01+00', '2030-01-01', 30001, 30001, 30001, 5);
ANALYZE vers;
ANALYZE obs;

-- The matrix: join forms, argument order, tolerance forms, keys 0/1/2,
-- a right-only filter, a LEFT join's filter, every time type
CREATE FUNCTION nn_matrix() RETURNS TABLE (variant text, result text)
LANGUAGE plpgsql AS $$
DECLARE
  d record;
  f record;
  sub text;
BEGIN
  FOR d IN
    SELECT * FROM (VALUES
      ('t', 'r.t <-> o.t', ''),
      ('t', 'o.t <-> r.t', ''),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t - interval '30 minutes' AND o.t + interval '1 hour'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t >= o.t - interval '30 minutes' AND r.t < o.t + interval '1 hour'$x$),
      ('t', 'r.t <-> o.t', $x$AND o.t - interval '10 minutes' < r.t$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t <= o.t + interval '10 minutes'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t AND o.t + interval '1 day'$x$),
      ('t', 'r.t <-> o.t', $x$AND r.t BETWEEN o.t + interval '-1 hour' AND o.t - interval '-2 minutes'$x$),
      ('t', 'r.t <-> o.t', 'AND r.v % 5 <> 0'),
      ('tz', 'r.tz <-> o.tz', ''),
      ('tz', 'r.tz <-> o.tz', $x$AND r.tz BETWEEN o.tz - interval '1 day' AND o.tz + interval '5 minutes'$x$),
      ('d', 'r.d <-> o.d', ''),
      ('d', 'r.d <-> o.d', 'AND r.d BETWEEN o.d - 3 AND o.d + 30'),
      ('d', 'r.d <-> o.d', $x$AND r.d >= o.d - interval '2 days'$x$),
      ('i4', 'r.i4 <-> o.i4', ''),
      ('i4', 'r.i4 <-> o.i4', 'AND r.i4 BETWEEN o.i4 - 10 AND o.i4 + 2'),
      ('i8', 'o.i8 <-> r.i8', ''),
      ('i8', 'r.i8 <-> o.i8', 'AND r.i8 > o.i8 - 7'),
      ('i2', 'r.i2 <-> o.i2', '')) v(col, ord, extra)
  LOOP
    FOR f IN
      SELECT * FROM (VALUES
        ('left', 'LEFT JOIN LATERAL', 'ON true', 'r.k = o.k'),
        ('inner', 'JOIN LATERAL', 'ON true', 'r.k = o.k'),
        ('cross', 'CROSS JOIN LATERAL', '', 'r.k = o.k'),
        ('2 keys', 'LEFT JOIN LATERAL', 'ON true', 'r.k = o.k AND o.k2 = r.k2'),
        ('no key', 'LEFT JOIN LATERAL', 'ON true', 'true'),
        ('left filter', 'LEFT JOIN LATERAL', 'ON r.v > o.amount * 100', 'r.k = o.k')) j(name, jt, onc, keys)
    LOOP
      variant := d.ord || CASE WHEN d.extra <> '' THEN ' ' || d.extra ELSE '' END || ' / ' || f.name;
      result := wj_test.on_off(format($q$
SELECT o.id, r.v, r.note, r.%s AS rt
FROM obs o
%s (
  SELECT v, note, %s FROM vers r
  WHERE %s %s
  ORDER BY %s LIMIT 1) r %s
$q$, d.col, f.jt, d.col, f.keys, d.extra, d.ord, f.onc), 'asof_join', 'AsOfJoin|Strategy:');
      RETURN NEXT;
    END LOOP;
  END LOOP;
END $$;
