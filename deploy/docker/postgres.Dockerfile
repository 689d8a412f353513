# PostgreSQL for the compose `scale` profile (docker-compose.yml), from Debian's postgresql-15:
# built like the other images from Debian's packages, so that the stack needs no image registry.
# It reads the official image's settings (POSTGRES_USER, POSTGRES_DB, POSTGRES_PASSWORD), so an
# operator may use `postgres:15-bookworm` instead. Rows only: Obscura seals what is personal.
FROM debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
COPY deploy/postgres /opt/obscura/deploy/postgres
RUN install -d -o postgres -g postgres -m 700 /var/lib/postgresql/data \
 && install -d -o postgres -g postgres -m 2775 /var/run/postgresql
USER postgres
ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data
EXPOSE 5432
CMD ["/opt/obscura/deploy/postgres/run.sh"]
