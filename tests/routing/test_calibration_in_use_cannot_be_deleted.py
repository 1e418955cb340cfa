"""The newest calibration is the one routing uses: deleting it from the admin would hand routing
to the one before it without a word. Older rows can go; the newest stays until Revert or
Recalibrate replaces it."""
from engine import RankingParams
from routing.models import RankingCalibration


def calibration(weight: float) -> RankingCalibration:
    return RankingCalibration.objects.create(catalog_version=1, model="local:test", calibrated=True, reason="test",
                                             params=RankingParams(lexical_weight=weight).to_dict())


def delete_selected(client, rows: list[RankingCalibration]) -> None:
    client.post("/admin/routing/rankingcalibration/", {
        "action": "delete_selected", "_selected_action": [row.pk for row in rows], "post": "yes"})


def test_older_calibrations_can_be_deleted_but_not_with_the_one_in_use(db, admin_client_logged_in) -> None:
    oldest, older, newest = calibration(0.1), calibration(0.3), calibration(0.5)
    delete_selected(admin_client_logged_in, [older, newest])
    assert RankingCalibration.objects.count() == 3  # refused as a whole: nothing half done
    delete_selected(admin_client_logged_in, [oldest, older])
    assert list(RankingCalibration.objects.values_list("pk", flat=True)) == [newest.pk]


def test_its_own_page_offers_no_delete(db, admin_client_logged_in) -> None:
    newest = calibration(0.5)
    assert admin_client_logged_in.post(f"/admin/routing/rankingcalibration/{newest.pk}/delete/",
                                       {"post": "yes"}).status_code == 403
    assert RankingCalibration.objects.filter(pk=newest.pk).exists()
