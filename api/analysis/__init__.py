"""The analysis resource: a position searched for one seat off the request path, its top moves as a job's answer."""
