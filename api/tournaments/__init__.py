"""The tournaments resource: views, schemas, service and store."""
