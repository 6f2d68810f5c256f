"""The database: SQLAlchemy, the migrations, the lease, the file watch; it implements the
table's storage interface and the typed reads and writes of the services. The only layer
that imports SQLAlchemy.
"""
