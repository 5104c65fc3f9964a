-- Fixed-window request counters shared by every server process on one database. A row per key and
-- window; old windows are deleted by the limiter as it goes.
CREATE TABLE rate_limit_counters (
  key text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (key, window_start)
);
CREATE INDEX rate_limit_counters_window ON rate_limit_counters (window_start);
