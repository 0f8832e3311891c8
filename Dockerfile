FROM python:3.11-slim
ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 DJANGO_SETTINGS_MODULE=config.settings.production
WORKDIR /app
COPY requirements.txt requirements-models.txt requirements-models-nodeps.txt ./
# the runtime and the models extra (crowd-kit without its unused heavy dependencies: docs/deployment.md)
RUN pip install --no-cache-dir -r requirements.txt -r requirements-models.txt \
 && pip install --no-cache-dir --no-deps -r requirements-models-nodeps.txt
COPY . .
# The platform's code compiled once here: with PYTHONDONTWRITEBYTECODE every process (each web worker, worker,
# migrate, score_run) would compile its ~250 modules again at start, about 0.2 s each (docs/deployment.md)
RUN python -m compileall -q annotator api evaluation scoring config
RUN SECRET_KEY=collectstatic-only python manage.py collectstatic --noinput
EXPOSE 8000
