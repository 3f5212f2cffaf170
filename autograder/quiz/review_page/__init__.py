"""The review page: `attnkit review OUT` serves it on 127.0.0.1 (server.py) over OUT/review.yaml (store.py)."""
