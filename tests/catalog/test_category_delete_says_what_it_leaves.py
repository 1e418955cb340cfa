"""Deleting a category leaves its sub-categories top-level, its tools uncategorised, and toolsets
without the tools they reached through it: the confirmation page says so before anyone clicks."""
from toolcatalog import services
from toolcatalog.models import Category, Tool, Toolset


def test_the_confirmation_names_what_the_deletion_leaves_behind(db, admin_client_logged_in) -> None:
    cms = services.save_validated(Category(name="cms", description="Content."))
    media = services.save_validated(Category(name="cms_media", description="Media.", parent=cms))
    services.save_validated(Tool(name="publish_page", description="Publishes a page.", category=cms))
    services.save_validated(Tool(name="upload_image", description="Uploads an image.", category=media))
    desk = Toolset.objects.create(name="desk")
    desk.categories.add(cms)
    page = admin_client_logged_in.get(f"/admin/toolcatalog/category/{cms.pk}/delete/").content.decode()
    assert "1 sub-category becomes top-level, with their own tools: cms_media." in page
    assert "1 tool of this category is left without a category" in page and "publish_page" in page
    assert "The toolset desk no longer reaches 2 tools" in page


def test_a_category_nothing_depends_on_shows_the_plain_page(db, admin_client_logged_in) -> None:
    lonely = services.save_validated(Category(name="lonely", description="Nothing here."))
    page = admin_client_logged_in.get(f"/admin/toolcatalog/category/{lonely.pk}/delete/").content.decode()
    assert "Also changed by this deletion" not in page and "Are you sure" in page
