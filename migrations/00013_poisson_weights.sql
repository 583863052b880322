-- The Poisson bootstrap's weights and the sign-flip test's signs, computed
-- in the database exactly as verdict computes them in Go (stats.PoissonWeight
-- and stats.FlipSign): from a hash of the sample ID, the replicate and the
-- seed. A database that holds an evaluation's units on several nodes can
-- then compute each replicate's weighted sums where the units are, and
-- return B numbers rather than n pairs. The hash is
--
--   hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b)
--
-- read as an unsigned 64-bit number (the sign bit flipped, so that signed
-- order is unsigned order); the weight is the smallest k whose threshold,
-- the Poisson(1) distribution function at k times 2^64, exceeds it.

-- +goose Up
-- +goose StatementBegin
CREATE FUNCTION verdict_poisson_weight(sample_id text, b integer, seed bigint) RETURNS integer
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
CREATE FUNCTION verdict_flip_sign(sample_id text, b integer, seed bigint) RETURNS boolean
LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $$
    SELECT (hashint8extended(hashtextextended(sample_id COLLATE "C", seed), b::bigint) & 1) = 1
$$;
-- +goose StatementEnd

-- +goose Down
DROP FUNCTION verdict_flip_sign(text, integer, bigint);
DROP FUNCTION verdict_poisson_weight(text, integer, bigint);
