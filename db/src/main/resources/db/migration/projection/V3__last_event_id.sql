-- The id of the last event applied to each account. A record that repeats the account's current version with
-- another event id is not a redelivery but a conflict (two different events claim one version): it is parked,
-- never counted as a duplicate. Rows projected before this column existed have none until their next event.
ALTER TABLE projection.balances ADD COLUMN event_id uuid;
