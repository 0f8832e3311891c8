from django.contrib import admin
from django.urls import include, path
from django.views.i18n import JavaScriptCatalog

from config.favicon import favicon

admin.autodiscover()  # every app's admin module: loaded here, not at set-up (config.admin_app)

urlpatterns = [
    path("favicon.ico", favicon, name="favicon"),
    path("admin/", admin.site.urls),
    path("api/", include("api.urls")),
    # the translated strings of static/js (gettext(), interpolate()), in the page's language
    path("jsi18n/", JavaScriptCatalog.as_view(), name="javascript-catalog"),
    path("", include("annotator.urls")),
    path("", include("evaluation.urls")),
]

handler400 = "config.errors.bad_request"
handler403 = "config.errors.permission_denied"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
