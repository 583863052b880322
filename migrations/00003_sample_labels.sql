-- 0/1 labels of an evaluation set's samples, for classification metrics
-- compared with DeLong's test (verdict log --labels).

-- +goose Up
CREATE TABLE sample_labels (
    evaluation_set_id integer NOT NULL REFERENCES evaluation_sets (id),
    sample_id         text COLLATE "C" NOT NULL,
    label             smallint NOT NULL CHECK (label IN (0, 1)),
    PRIMARY KEY (evaluation_set_id, sample_id)
);

-- +goose Down
DROP TABLE sample_labels;
