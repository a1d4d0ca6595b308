"""Example external bots, run as scripts against a live server and by the tests."""
