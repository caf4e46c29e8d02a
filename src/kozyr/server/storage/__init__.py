"""Storage: the database's tables (:mod:`.schema`) and the store that reads
and writes them off the event loop (:mod:`.store`).  SQLite by default,
PostgreSQL for a cluster."""
