"""The bottom layer every other package may use: the Redis client and its stamps, one bounded
LRU cache, one two-level (memory + Redis) vector cache, and a few small helpers.

`lru`, `memory`, `messages` and `fields` are pure Python (the engine uses `lru` and `memory`);
`redis_client` and `vector_cache` read Django settings.
"""
