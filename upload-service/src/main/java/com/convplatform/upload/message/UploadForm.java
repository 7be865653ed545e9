package com.convplatform.upload.message;

import org.eclipse.microprofile.openapi.annotations.enums.SchemaType;
import org.eclipse.microprofile.openapi.annotations.media.Schema;
import org.jboss.resteasy.reactive.RestForm;
import org.jboss.resteasy.reactive.multipart.FileUpload;

/** The form of spec 4.5, read by {@link UploadBody}; the fields are checked by {@link UploadChecks}. */
@Schema(name = "UploadForm", requiredProperties = {"auth_id", "business_id", "message_type", "file"})
public class UploadForm {
    @RestForm("auth_id")
    @Schema(name = "auth_id", description = "The user's identifier in the caller's system: 1 to 64 letters and digits", example = "user42", pattern = "^[A-Za-z0-9]{1,64}$")
    public String authId;

    @RestForm("business_id")
    @Schema(name = "business_id", description = "The channel or queue the message is registered on: the token's account's business", example = "1001", pattern = "^[0-9]{1,32}$")
    public String businessId;

    @RestForm("message_type")
    @Schema(name = "message_type", description = "1 for an image (jpg, jpeg, png, gif), 52 for a document (docx, doc, xls, xlsx, csv)", enumeration = {
            "1", "52"}, example = "1")
    public String messageType;

    @RestForm("file")
    @Schema(name = "file", type = SchemaType.STRING, format = "binary", description = "The file, at most 10 MiB (10,485,760 bytes); its name's extension must fit the message type and its content must be of that kind")
    public FileUpload file;

    @RestForm("message_body")
    @Schema(name = "message_body", description = "Text sent to the bot or agent with the file, at most 4096 characters", example = "see attached")
    public String messageBody;
}
