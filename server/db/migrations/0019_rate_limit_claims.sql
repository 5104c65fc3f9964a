-- Counter rows are swept by when a process last claimed from them (the database's clock), not by their window's
-- start: a process whose clock runs behind (a skewed host, a test's fixed clock) counts in a window that others
-- take for long over, and their sweep deleted its count mid-window. Every process's claims in one window fall
-- within the window's length of its first claim, so a row no one has claimed for the longest window is done.
ALTER TABLE rate_limit_counters ADD COLUMN claimed_at timestamptz NOT NULL DEFAULT now();
DROP INDEX rate_limit_counters_window;
CREATE INDEX rate_limit_counters_claimed ON rate_limit_counters (claimed_at);
