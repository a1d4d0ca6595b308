"""The chaos soak: Parlour over Redis Sentinel under traffic while processes are killed (`python -m loadtests.chaos`).

`cluster` starts and kills the processes, `clients` plays the traffic, `faults` kills and waits for
recovery, `checks` holds the stores to what the clients were acknowledged.
"""
