from django.apps import AppConfig
from django.db.models.signals import post_delete, post_save


class AnnotatorConfig(AppConfig):
    name = "annotator"
    verbose_name = "Annotation projects"

    def ready(self) -> None:
        import annotator.language  # noqa: F401  (the stored interface language, applied at login)
        import config.outbound.policy  # noqa: F401  (the check of the hosts and URLs the operator named)
        from annotator.models import Criterion, Post
        from annotator.selectors.structure import structure_cache_clear

        # Deleted dialogues' ids are never reused, so only edits need to reach the cache.
        post_save.connect(structure_cache_clear, sender=Criterion, dispatch_uid="structure-criterion-saved")
        post_delete.connect(structure_cache_clear, sender=Criterion, dispatch_uid="structure-criterion-deleted")
        post_save.connect(structure_cache_clear, sender=Post, dispatch_uid="structure-post-saved")
