package com.convplatform.cli.support;

import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;

import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** Reads {@code --at}: an ISO-8601 instant ({@code 2027-01-31T12:00:00Z}) or a date (midnight UTC). */
public final class InstantConverter implements ITypeConverter<Instant> {
    @Override
    public Instant convert(String value) {
        try {
            if (value.length() == 10) {
                return LocalDate.parse(value).atStartOfDay().toInstant(ZoneOffset.UTC);
            }
            return Instant.parse(value);
        } catch (DateTimeParseException e) {
            throw new TypeConversionException("'" + value
                    + "' is not an instant; expected UTC like 2027-01-31T12:00:00Z or a date like 2027-01-31");
        }
    }
}
