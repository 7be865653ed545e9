"""Upload a file as a user (spec 4.5) and print the logged message's id.
Settings: UPLOAD_URL, TOKEN, CLIENT_ID, AUTH_ID, BUSINESS_ID, FILE (a .csv, .docx, ... is a document; .png an image)."""
import os

from convplatform import ApiError, UploadClient

env = os.environ
kind = UploadClient.IMAGE if env["FILE"].lower().endswith((".jpg", ".jpeg", ".png", ".gif")) else UploadClient.DOCUMENT
try:
    message = UploadClient(env.get("UPLOAD_URL", "http://localhost:8083")).upload(
        access_token=env["TOKEN"], client_id=env["CLIENT_ID"], auth_id=env["AUTH_ID"],
        business_id=env["BUSINESS_ID"], message_type=kind, file=env["FILE"])
except ApiError as e:
    raise SystemExit(f"refused: {e.status} {e.error_code}: {e.error_message}")
print(message.message_id)
