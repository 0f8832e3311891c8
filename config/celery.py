"""Celery application. Without a broker URL, tasks run in-process (eagerly)."""
import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings.local")

app = Celery("dialeval")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
