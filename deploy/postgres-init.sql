-- Run once by the PostgreSQL image when it creates the database (compose.yaml). The replay buffer
-- searches with pgvector's HNSW indexes where the extension exists (else each instance keeps its
-- own usearch index); creating it needs a superuser, which the buffer's role need not be.
CREATE EXTENSION IF NOT EXISTS vector;
