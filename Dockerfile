# One image for every Procfile role: `IMAGE web|worker|callbacks|mail|previews|beat|release`, or
# `IMAGE manage ARGS...` for manage.py. Production settings by default; see
# docs/guides/containers.md.

# ---------------------------------------------------------------- build: the virtualenv
FROM docker.io/library/debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 python3-venv ca-certificates \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/venv
COPY requirements/base.txt requirements/production.txt /src/requirements/
# Empty unless the build passes a CA bundle (a TLS proxy in front of PyPI); pip then keeps
# its defaults.
ARG PIP_CERT=
RUN /opt/venv/bin/pip install --no-cache-dir --disable-pip-version-check \
      -r /src/requirements/production.txt

# ---------------------------------------------------------------- runtime: no build tools
FROM docker.io/library/debian:bookworm-slim
# Chromium (the chromium renderer; libatomic1 for the Playwright driver's node), Pango and HarfBuzz (WeasyPrint), fontconfig (both find
# the bundled fonts through it), tini (PID 1: reaps Chromium's children, forwards signals).
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      python3 chromium libatomic1 libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz-subset0 \
      fontconfig fonts-dejavu-core tini ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --uid 10001 --user-group --home-dir /app --shell /usr/sbin/nologin app
# OFFICE=1 builds the office variant: LibreOffice (Writer, Calc, Impress without the GUI)
# and python3-uno for office conversions (rendering.office, POST /api/v1/convert, the
# Gotenberg LibreOffice route). The default image (OFFICE=0) installs nothing here.
ARG OFFICE=0
RUN if [ "$OFFICE" = "1" ]; then \
      apt-get update \
      && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
         libreoffice-writer-nogui libreoffice-calc-nogui libreoffice-impress-nogui python3-uno \
      && rm -rf /var/lib/apt/lists/*; \
    fi
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    DJANGO_SETTINGS_MODULE=config.settings.production \
    CHROMIUM_PATH=/usr/bin/chromium \
    VAR_DIR=/app/var \
    HOST=0.0.0.0 \
    PORT=8000
WORKDIR /app
# The code belongs to root and is read-only to the service; only var/ is its own.
COPY . /app
# Static files are part of the image (whitenoise serves them); the values here exist only
# for this one command, which reads no database, broker or bucket.
RUN DJANGO_SECRET_KEY=build-only-collectstatic-key-not-used-at-runtime-0123456789abcdef \
    DJANGO_ALLOWED_HOSTS=build METRICS_TOKEN=build REDIS_URL=redis://build:6379/0 \
    PUBLIC_BASE_URL=http://build PDF_CERTIFICATE_KEY=YnVpbGQtb25seS1rZXktbm90LXVzZWQtYXQtcnVudGk= \
    SINGLE_HOST=true python manage.py collectstatic --noinput --verbosity 0 \
 && python -m compileall -q /app >/dev/null \
 && mkdir -p /app/var && chown -R app:app /app/var
USER app
EXPOSE 8000
# Each role answers for itself (config/entrypoint.py): web asks its own /readyz, workers
# read the health file their main process and pool children keep fresh.
HEALTHCHECK --interval=15s --timeout=10s --start-period=40s --retries=3 \
  CMD ["python", "-m", "config.entrypoint", "health"]
ENTRYPOINT ["tini", "--", "python", "-m", "config.entrypoint"]
CMD ["web"]
