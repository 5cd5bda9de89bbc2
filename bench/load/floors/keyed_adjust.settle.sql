-- Before each measurement, as bench/load/dbcost settles its adjust scenarios: the dead rows of
-- the last run vacuumed, so that autovacuum does not run during the measurement.
vacuum analyze products, variants;
