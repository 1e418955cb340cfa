import os

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand


class Command(BaseCommand):
    help = "Create the admin user named by ADMIN_USERNAME/ADMIN_PASSWORD (default admin/admin) if missing."

    def handle(self, *args, **options) -> None:
        username = os.environ.get("ADMIN_USERNAME", "admin")
        password = os.environ.get("ADMIN_PASSWORD", "admin")
        users = get_user_model().objects
        if users.filter(username=username).exists():
            self.stdout.write(f"admin user {username!r} exists")
            return
        users.create_superuser(username=username, email="", password=password)
        self.stdout.write(f"created admin user {username!r} (password from ADMIN_PASSWORD, default 'admin')")
