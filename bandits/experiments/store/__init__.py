"""Stage 3, store: the format on disk, which the run reads (cells done) and writes (cells new).

Shards of cells, the tables gathered from them, atomic writes, and the code fingerprint that
keys a cell."""
