#include "db/schema.h"

#include <cstddef>
#include <string_view>

namespace ctte::db {
namespace {

// Migration "triage" (docs/triage.md): bisections and triages of red runs, their legs and each
// leg's runs. Self-contained: it only references runs(id).
const char* TriageMigration() {
  return R"sql(
CREATE TABLE bisections (
  id                  INTEGER PRIMARY KEY,
  run_id              INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  kind                TEXT NOT NULL CHECK (kind IN ('bisect', 'triage')),
  created_at          TEXT NOT NULL,
  repeats             INTEGER NOT NULL CHECK (repeats >= 1),
  verdict             TEXT NOT NULL,
  culprits            TEXT NOT NULL DEFAULT '',
  summary             TEXT NOT NULL DEFAULT '',
  baseline_json       TEXT CHECK (baseline_json IS NULL OR json_valid(baseline_json)),
  minimal_config_json TEXT CHECK (minimal_config_json IS NULL OR json_valid(minimal_config_json)),
  minimal_command     TEXT NOT NULL DEFAULT ''
);
CREATE INDEX bisections_run ON bisections(run_id);

CREATE TABLE bisection_legs (
  id           INTEGER PRIMARY KEY,
  bisection_id INTEGER NOT NULL REFERENCES bisections(id) ON DELETE CASCADE,
  ordinal      INTEGER NOT NULL CHECK (ordinal >= 0),
  kind         TEXT NOT NULL,
  factors      TEXT NOT NULL DEFAULT '',
  config_json  TEXT NOT NULL CHECK (json_valid(config_json)),
  verdict      TEXT NOT NULL,
  red          INTEGER NOT NULL CHECK (red >= 0),
  judged       INTEGER NOT NULL CHECK (judged >= red),
  unsound      INTEGER NOT NULL CHECK (unsound >= 0),
  lo           REAL NOT NULL CHECK (lo >= 0 AND lo <= 1),
  hi           REAL NOT NULL CHECK (hi >= lo AND hi <= 1),
  UNIQUE (bisection_id, ordinal)
);

CREATE TABLE bisection_runs (
  id           INTEGER PRIMARY KEY,
  leg_id       INTEGER NOT NULL REFERENCES bisection_legs(id) ON DELETE CASCADE,
  repeat       INTEGER NOT NULL CHECK (repeat >= 0),
  seed         TEXT NOT NULL CHECK (seed GLOB '0x[0-9a-f]*' AND length(seed) = 18),
  status       TEXT NOT NULL CHECK (status IN ('green', 'red', 'invalid', 'infra')),
  red_verdicts TEXT NOT NULL DEFAULT '',
  reason       TEXT NOT NULL DEFAULT '',
  board_serial TEXT NOT NULL DEFAULT '',
  wall_ms      INTEGER CHECK (wall_ms IS NULL OR wall_ms >= 0),
  UNIQUE (leg_id, repeat)
);
)sql";
}

// Migration "history at scale" (docs/db-schema.md#history-counts): what `history` and `report`
// read of a month of nights without parsing every run's JSON. runs.is_control (a virtual column:
// nothing stored in the row, its value kept in the runs_history index) and the covering index
// runs_history; the per-campaign counts axis_counts and verdict_counts, kept by triggers on
// runs and verdicts (so every writer, merge included, keeps them) and backfilled here from the
// rows already stored. Self-contained: it only references runs and verdicts.
const char* HistoryAtScaleMigration() {
  return R"sql(
ALTER TABLE runs ADD COLUMN is_control INTEGER
  GENERATED ALWAYS AS (json_extract(config_json, '$.control') IS NOT NULL) VIRTUAL;
CREATE INDEX runs_history ON runs(campaign_id, is_control, replay_of, status, board_id,
                                  infra_cause);

-- Original draws (no replay, no control) per campaign, axis value and status.
CREATE TABLE axis_counts (
  campaign_id INTEGER NOT NULL,
  factor      TEXT NOT NULL,
  value       TEXT NOT NULL,
  status      TEXT NOT NULL,
  runs        INTEGER NOT NULL,
  PRIMARY KEY (campaign_id, factor, value, status)
) WITHOUT ROWID;
-- Verdict outcomes of judged runs (database.h) per campaign.
CREATE TABLE verdict_counts (
  campaign_id INTEGER NOT NULL,
  verdict     TEXT NOT NULL,
  outcome     TEXT NOT NULL,
  runs        INTEGER NOT NULL,
  PRIMARY KEY (campaign_id, verdict, outcome)
) WITHOUT ROWID;

INSERT INTO axis_counts (campaign_id, factor, value, status, runs)
SELECT r.campaign_id, a.key, CAST(a.value AS TEXT), r.status, COUNT(*)
FROM runs r, json_each(r.config_json, '$.axes') a
WHERE r.replay_of IS NULL AND r.is_control = 0 AND CAST(a.value AS TEXT) IS NOT NULL
GROUP BY 1, 2, 3, 4;
INSERT INTO verdict_counts (campaign_id, verdict, outcome, runs)
SELECT r.campaign_id, v.verdict, v.outcome, COUNT(*) FROM runs r JOIN verdicts v ON v.run_id = r.id
WHERE r.replay_of IS NULL AND r.status IN ('green', 'red') AND r.is_control = 0
GROUP BY 1, 2, 3;

CREATE TRIGGER runs_counts_insert AFTER INSERT ON runs
WHEN NEW.replay_of IS NULL AND NEW.is_control = 0
BEGIN
  INSERT INTO axis_counts (campaign_id, factor, value, status, runs)
  SELECT NEW.campaign_id, a.key, CAST(a.value AS TEXT), NEW.status, 1
  FROM json_each(NEW.config_json, '$.axes') a WHERE CAST(a.value AS TEXT) IS NOT NULL
  ON CONFLICT (campaign_id, factor, value, status) DO UPDATE SET runs = runs + 1;
END;

-- BEFORE: its verdicts go first (verdicts_counts_delete subtracts them while the run is there
-- to say whether it was judged), then its axis values.
CREATE TRIGGER runs_counts_delete BEFORE DELETE ON runs
BEGIN
  DELETE FROM verdicts WHERE run_id = OLD.id;
  UPDATE axis_counts SET runs = runs - 1
  WHERE OLD.replay_of IS NULL AND OLD.is_control = 0 AND
        campaign_id = OLD.campaign_id AND status = OLD.status AND (factor, value) IN
        (SELECT a.key, CAST(a.value AS TEXT) FROM json_each(OLD.config_json, '$.axes') a);
END;

CREATE TRIGGER runs_counts_update AFTER UPDATE OF campaign_id, config_json, status, replay_of
ON runs
WHEN OLD.campaign_id IS NOT NEW.campaign_id OR OLD.config_json IS NOT NEW.config_json OR
     OLD.status IS NOT NEW.status OR OLD.replay_of IS NOT NEW.replay_of
BEGIN
  UPDATE axis_counts SET runs = runs - 1
  WHERE OLD.replay_of IS NULL AND OLD.is_control = 0 AND
        campaign_id = OLD.campaign_id AND status = OLD.status AND (factor, value) IN
        (SELECT a.key, CAST(a.value AS TEXT) FROM json_each(OLD.config_json, '$.axes') a);
  INSERT INTO axis_counts (campaign_id, factor, value, status, runs)
  SELECT NEW.campaign_id, a.key, CAST(a.value AS TEXT), NEW.status, 1
  FROM json_each(NEW.config_json, '$.axes') a
  WHERE NEW.replay_of IS NULL AND NEW.is_control = 0 AND CAST(a.value AS TEXT) IS NOT NULL
  ON CONFLICT (campaign_id, factor, value, status) DO UPDATE SET runs = runs + 1;
  UPDATE verdict_counts SET runs = runs -
         (SELECT COUNT(*) FROM verdicts v WHERE v.run_id = OLD.id AND
          v.verdict = verdict_counts.verdict AND v.outcome = verdict_counts.outcome)
  WHERE OLD.replay_of IS NULL AND OLD.status IN ('green', 'red') AND OLD.is_control = 0 AND
        campaign_id = OLD.campaign_id;
  INSERT INTO verdict_counts (campaign_id, verdict, outcome, runs)
  SELECT NEW.campaign_id, v.verdict, v.outcome, 1 FROM verdicts v
  WHERE v.run_id = NEW.id AND NEW.replay_of IS NULL AND NEW.status IN ('green', 'red') AND
        NEW.is_control = 0
  ON CONFLICT (campaign_id, verdict, outcome) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER verdicts_counts_insert AFTER INSERT ON verdicts
BEGIN
  INSERT INTO verdict_counts (campaign_id, verdict, outcome, runs)
  SELECT r.campaign_id, NEW.verdict, NEW.outcome, 1 FROM runs r
  WHERE r.id = NEW.run_id AND r.replay_of IS NULL AND r.status IN ('green', 'red') AND
        r.is_control = 0
  ON CONFLICT (campaign_id, verdict, outcome) DO UPDATE SET runs = runs + 1;
END;

CREATE TRIGGER verdicts_counts_delete AFTER DELETE ON verdicts
BEGIN
  UPDATE verdict_counts SET runs = runs - 1
  WHERE verdict = OLD.verdict AND outcome = OLD.outcome AND campaign_id =
        (SELECT r.campaign_id FROM runs r WHERE r.id = OLD.run_id AND r.replay_of IS NULL AND
         r.status IN ('green', 'red') AND r.is_control = 0);
END;

CREATE TRIGGER verdicts_counts_update AFTER UPDATE ON verdicts
BEGIN
  UPDATE verdict_counts SET runs = runs - 1
  WHERE verdict = OLD.verdict AND outcome = OLD.outcome AND campaign_id =
        (SELECT r.campaign_id FROM runs r WHERE r.id = OLD.run_id AND r.replay_of IS NULL AND
         r.status IN ('green', 'red') AND r.is_control = 0);
  INSERT INTO verdict_counts (campaign_id, verdict, outcome, runs)
  SELECT r.campaign_id, NEW.verdict, NEW.outcome, 1 FROM runs r
  WHERE r.id = NEW.run_id AND r.replay_of IS NULL AND r.status IN ('green', 'red') AND
        r.is_control = 0
  ON CONFLICT (campaign_id, verdict, outcome) DO UPDATE SET runs = runs + 1;
END;
)sql";
}

}  // namespace

const std::vector<const char*>& Migrations() {
  static const std::vector<const char*> migrations = {
      // 1: the initial schema.
      R"sql(
CREATE TABLE campaigns (
  id          INTEGER PRIMARY KEY,
  name        TEXT NOT NULL,
  description TEXT NOT NULL DEFAULT '',
  seed        TEXT NOT NULL CHECK (seed GLOB '0x[0-9a-f]*' AND length(seed) = 18),
  spec_json   TEXT NOT NULL CHECK (json_valid(spec_json)),
  spec_sha256 TEXT NOT NULL CHECK (length(spec_sha256) = 64),
  created_at  TEXT NOT NULL,
  UNIQUE (name, spec_sha256)
);

CREATE TABLE images (
  id            INTEGER PRIMARY KEY,
  name          TEXT NOT NULL,
  sha256        TEXT NOT NULL UNIQUE CHECK (length(sha256) = 64),
  build_id      TEXT NOT NULL DEFAULT '',
  manifest_json TEXT CHECK (manifest_json IS NULL OR json_valid(manifest_json))
);

CREATE TABLE boards (
  id        INTEGER PRIMARY KEY,
  kind      TEXT NOT NULL,
  serial    TEXT NOT NULL,
  info_json TEXT CHECK (info_json IS NULL OR json_valid(info_json)),
  UNIQUE (kind, serial)
);

CREATE TABLE runs (
  id                  INTEGER PRIMARY KEY,
  campaign_id         INTEGER NOT NULL REFERENCES campaigns(id),
  idx                 INTEGER NOT NULL CHECK (idx >= 0),
  seed                TEXT NOT NULL CHECK (seed GLOB '0x[0-9a-f]*' AND length(seed) = 18),
  config_json         TEXT NOT NULL CHECK (json_valid(config_json)),
  status              TEXT NOT NULL
                      CHECK (status IN ('planned', 'green', 'red', 'invalid', 'infra')),
  image_name          TEXT,
  image_sha256        TEXT CHECK (image_sha256 IS NULL OR length(image_sha256) = 64),
  board_id            INTEGER REFERENCES boards(id),
  fabric_hz_requested INTEGER,
  fabric_hz_programmed INTEGER,
  fabric_hz_read_back INTEGER,
  sink_hz_requested   INTEGER,
  sink_hz_programmed  INTEGER,
  sink_hz_read_back   INTEGER,
  started_at          TEXT,
  wall_ms             INTEGER CHECK (wall_ms IS NULL OR wall_ms >= 0),
  stream_sha256       TEXT CHECK (stream_sha256 IS NULL OR length(stream_sha256) = 64),
  stream_size         INTEGER CHECK (stream_size IS NULL OR stream_size >= 0),
  counters_json       TEXT CHECK (counters_json IS NULL OR json_valid(counters_json)),
  metrics_json        TEXT CHECK (metrics_json IS NULL OR json_valid(metrics_json)),
  replay_of           INTEGER REFERENCES runs(id)
);
-- One original run per (campaign, index); replays are extra rows pointing at it.
CREATE UNIQUE INDEX runs_campaign_idx ON runs(campaign_id, idx) WHERE replay_of IS NULL;
CREATE INDEX runs_status ON runs(status);

CREATE TABLE verdicts (
  id           INTEGER PRIMARY KEY,
  run_id       INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  verdict      TEXT NOT NULL,
  outcome      TEXT NOT NULL CHECK (outcome IN ('pass', 'fail', 'n/a')),
  evidence     TEXT NOT NULL DEFAULT '',
  metrics_json TEXT CHECK (metrics_json IS NULL OR json_valid(metrics_json)),
  UNIQUE (run_id, verdict)
);

CREATE TABLE streams (
  run_id INTEGER PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
  bytes  BLOB NOT NULL
);
)sql",
      // 2: infrastructure events (board deaths, respawns, retries) and history indexes.
      R"sql(
-- Why an infra run is infra: a short stable token (docs/db-schema.md#infra-causes).
ALTER TABLE runs ADD COLUMN infra_cause TEXT
  CHECK (infra_cause IS NULL OR (length(infra_cause) BETWEEN 1 AND 32 AND
                                 infra_cause NOT GLOB '*[^a-z_]*'));

-- The earlier attempts of a run: each one the lab gave up on and tried again. The run row is
-- the last attempt (number = count of these + 1).
CREATE TABLE run_attempts (
  id          INTEGER PRIMARY KEY,
  run_id      INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
  attempt     INTEGER NOT NULL CHECK (attempt >= 1),
  board_id    INTEGER REFERENCES boards(id),
  status      TEXT NOT NULL CHECK (status IN ('infra', 'invalid')),
  infra_cause TEXT CHECK (infra_cause IS NULL OR (length(infra_cause) BETWEEN 1 AND 32 AND
                                                  infra_cause NOT GLOB '*[^a-z_]*')),
  reason      TEXT NOT NULL DEFAULT '',
  respawned   INTEGER NOT NULL DEFAULT 0 CHECK (respawned IN (0, 1)),
  started_at  TEXT,
  wall_ms     INTEGER CHECK (wall_ms IS NULL OR wall_ms >= 0),
  UNIQUE (run_id, attempt),
  CHECK (status <> 'infra' OR infra_cause IS NOT NULL)
);

-- history and report read runs by campaign (replays included) and find replays of a run; the
-- partial runs_campaign_idx of schema 1 only serves original runs.
CREATE INDEX runs_campaign ON runs(campaign_id, idx);
CREATE INDEX runs_replay_of ON runs(replay_of) WHERE replay_of IS NOT NULL;
)sql",
      // content pins: what each run ran, by SHA-256 (db/pins.cc).
      ContentPinsMigration(),
      // triage: bisections, legs, leg runs (db/triage_store.cc).
      TriageMigration(),
      // history at scale: runs.is_control, runs_history, axis_counts, verdict_counts.
      HistoryAtScaleMigration(),
  };
  return migrations;
}

int HistoryCountsSchemaVersion() {
  const std::vector<const char*>& m = Migrations();
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] == HistoryAtScaleMigration()) return static_cast<int>(i + 1);
  }
  return static_cast<int>(m.size()) + 1;
}

bool IsDerivedTable(std::string_view table) {
  return table == "axis_counts" || table == "verdict_counts";
}

int ContentPinsSchemaVersion() {
  const std::vector<const char*>& m = Migrations();
  for (std::size_t i = 0; i < m.size(); ++i) {
    if (m[i] == ContentPinsMigration()) return static_cast<int>(i + 1);
  }
  return static_cast<int>(m.size()) + 1;  // not listed: never present
}

}  // namespace ctte::db
