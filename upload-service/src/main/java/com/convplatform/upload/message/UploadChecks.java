package com.convplatform.upload.message;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.regex.Pattern;

import jakarta.enterprise.context.ApplicationScoped;

import com.convplatform.support.ApiException;
import com.convplatform.upload.auth.TokenIdentityProvider.Caller;
import com.convplatform.upload.config.UploadConfig;

/** Spec 4.5: checks an upload's form in the README's order; the first failed check is the refusal. */
@ApplicationScoped
class UploadChecks {
    private static final Pattern AUTH_ID = Pattern.compile("[A-Za-z0-9]{1,64}");
    static final String AUTH_ID_REQUIRED = "auth_id is required: 1 to 64 letters and digits";
    private static final Pattern BUSINESS_ID = Pattern.compile("[0-9]{1,32}");
    private static final Pattern UNSAFE_NAME_CHARACTERS = Pattern.compile("[^A-Za-z0-9.-]+");
    private static final Pattern LEADING_DOTS = Pattern.compile("^[.]+");

    private final UploadConfig config;
    private final MessageRepository messages;

    UploadChecks(UploadConfig config, MessageRepository messages) {
        this.config = config;
        this.messages = messages;
    }

    /** A form that passed: its file's name as stored, content type and size. */
    record Checked(int type, String body, String name, String contentType, long size) {
    }

    Checked check(Caller caller, UploadForm f) {
        if (f.authId == null || !AUTH_ID.matcher(f.authId).matches()) {
            throw bad("INVALID_AUTH_ID", AUTH_ID_REQUIRED);
        }
        if (f.businessId == null || !BUSINESS_ID.matcher(f.businessId).matches()) {
            throw bad("INVALID_BUSINESS_ID", "business_id is required: a string of digits");
        }
        int type = "1".equals(f.messageType) ? FileTypes.IMAGE : "52".equals(f.messageType) ? FileTypes.DOCUMENT : 0;
        if (type == 0) {
            throw bad("INVALID_MESSAGE_TYPE", "message_type must be 1 (image) or 52 (document)");
        }
        long size = f.file == null || f.file.fileName() == null ? 0 : f.file.size();
        if (size == 0) {
            throw bad("MISSING_FILE", "file is required and may not be empty");
        }
        String body = f.messageBody == null ? "" : f.messageBody;
        if (body.length() > config.maxMessageBody()) {
            throw bad("MESSAGE_BODY_TOO_LONG",
                    "message_body may be at most " + config.maxMessageBody() + " characters");
        }
        if (!f.businessId.equals(caller.businessId())) {
            throw new ApiException(403, "BUSINESS_NOT_ALLOWED",
                    "business_id " + f.businessId + " does not belong to the account of this token");
        }
        // Whether the user is registered is checked by the insert of the message (MessageRepository): asked here only
        // when a later check refuses the upload, so that USER_NOT_REGISTERED keeps its place in the order.
        String name = sanitise(f.file.fileName());
        String ext = FileTypes.extension(name);
        ApiException refusal = fileRefusal(f, type, size, ext);
        if (refusal != null) {
            throw messages.userRegistered(f.businessId, f.authId) ? refusal : notRegistered(f.businessId, f.authId);
        }
        return new Checked(type, body, name, FileTypes.CONTENT_TYPES.get(ext), size);
    }

    /** The refusal of an upload whose user is not registered for the business: 403 USER_NOT_REGISTERED. */
    static ApiException notRegistered(String businessId, String authId) {
        return new ApiException(403, "USER_NOT_REGISTERED",
                "The user " + authId + " is not registered for business " + businessId);
    }

    /** The first of the checks on the file itself (size, extension, content) that refuses it, or null. */
    private ApiException fileRefusal(UploadForm f, int type, long size, String ext) {
        if (size > config.maxFileBytes()) {
            return new ApiException(413, "FILE_TOO_LARGE", UploadResource.tooLarge(config.maxFileBytes()));
        }
        List<String> allowed = type == FileTypes.IMAGE ? FileTypes.IMAGES : FileTypes.DOCUMENTS;
        if (!allowed.contains(ext)) {
            String kind = type == FileTypes.IMAGE ? "An image (message_type 1)" : "A document (message_type 52)";
            String last = allowed.get(allowed.size() - 1);
            String choices = "." + String.join(", .", allowed.subList(0, allowed.size() - 1)) + " or ." + last;
            return new ApiException(415, "UNSUPPORTED_FILE_TYPE", kind + " must be a " + choices + " file; got "
                    + (ext.isEmpty() ? "a name without an extension" : "a ." + ext + " file"));
        }
        try {
            if (!FileTypes.contentMatches(ext, f.file.uploadedFile())) {
                return new ApiException(415, "CONTENT_MISMATCH",
                        "The file's content is not a ." + ext + " file; send the file under its real type");
            }
        } catch (IOException e) {
            // the service's own copy of the part: its failure, answered 500 INTERNAL_ERROR and logged, not the caller's
            throw new UncheckedIOException("The uploaded file's copy could not be read", e);
        }
        return null;
    }

    static String sanitise(String name) {
        int slash = Math.max(name.lastIndexOf('/'), name.lastIndexOf('\\'));
        name = LEADING_DOTS.matcher(UNSAFE_NAME_CHARACTERS.matcher(name.substring(slash + 1)).replaceAll("_"))
                .replaceAll("");
        if (name.length() > 100) {
            String ext = FileTypes.extension(name);
            name = ext.length() < 99 ? name.substring(0, 100 - ext.length() - 1) + "." + ext : name.substring(0, 100);
        }
        return name.isEmpty() ? "file" : name;
    }

    private static ApiException bad(String code, String message) {
        return new ApiException(400, code, message);
    }
}
