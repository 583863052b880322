-- The Poisson bootstrap's weights and the sign-flip test's signs, drawn from
-- one hash for each block of four replicates (stats.PoissonWeight and
-- stats.FlipSign): a database that sums replicates where the units are
-- computes a quarter of the hashes it did, and reads a unit once for
-- several replicates. The hash of replicate b's block is
--
--   hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b / 4)
--
-- and b reads its 16 bits at 16 * (b % 4): their high 15 bits v give the
-- weight, the smallest k with v < round(F(k) * 2^15) for the Poisson(1)
-- distribution function F (0 to 7), and their lowest bit the sign. The
-- thresholds are those of stats.PoissonThresholds.

-- +goose Up
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_poisson_weight(sample_id text, b integer, seed bigint) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE
               WHEN v < 12055 THEN 0
               WHEN v < 24109 THEN 1
               WHEN v < 30137 THEN 2
               WHEN v < 32146 THEN 3
               WHEN v < 32648 THEN 4
               WHEN v < 32749 THEN 5
               WHEN v < 32765 THEN 6
               ELSE 7 END
    FROM (SELECT (hashint8extended(hashtextextended(sample_id COLLATE "C", seed), (b / 4)::bigint)
                  >> (16 * (b % 4) + 1)) & 32767 AS v) AS h
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_flip_sign(sample_id text, b integer, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT ((hashint8extended(hashtextextended(sample_id COLLATE "C", seed), (b / 4)::bigint)
             >> (16 * (b % 4))) & 1) = 1
$$;
-- +goose StatementEnd

-- +goose Down
-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_poisson_weight(sample_id text, b integer, seed bigint) RETURNS integer
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT CASE
               WHEN s < -2437194135585890534 THEN 0
               WHEN s < 4348983765682994741 THEN 1
               WHEN s < 7742072716317437378 THEN 2
               WHEN s < 8873102366528918257 THEN 3
               WHEN s < 9155859779081788477 THEN 4
               WHEN s < 9212411261592362521 THEN 5
               WHEN s < 9221836508677458195 THEN 6
               WHEN s < 9223182972546757577 THEN 7
               WHEN s < 9223351280530420000 THEN 8
               WHEN s < 9223369981417493602 THEN 9
               WHEN s < 9223371851506200963 THEN 10
               WHEN s < 9223372021514265268 THEN 11
               WHEN s < 9223372035681603960 THEN 12
               WHEN s < 9223372036771399244 THEN 13
               WHEN s < 9223372036849241765 THEN 14
               WHEN s < 9223372036854431266 THEN 15
               WHEN s < 9223372036854755610 THEN 16
               WHEN s < 9223372036854774689 THEN 17
               WHEN s < 9223372036854775749 THEN 18
               WHEN s < 9223372036854775805 THEN 19
               ELSE 20 END
    FROM (SELECT hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b::bigint)
                 # (-9223372036854775807 - 1) AS s) AS h
$$;
-- +goose StatementEnd

-- +goose StatementBegin
CREATE OR REPLACE FUNCTION verdict_flip_sign(sample_id text, b integer, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b::bigint) & 1) = 1
$$;
-- +goose StatementEnd
