package com.convplatform.upload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.ParameterizedType;
import java.lang.reflect.RecordComponent;
import java.lang.reflect.Type;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import org.junit.jupiter.api.Test;

import com.convplatform.api.intake.FileMessage;
import com.convplatform.api.intake.IntakeEvent;
import com.convplatform.crypto.testing.NativeImageRules;
import com.convplatform.upload.erasure.HookErasures;
import com.convplatform.upload.handoff.HookIntakeClient;
import com.convplatform.upload.message.UploadService;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * What a native image refuses or lacks, checked on the JVM: no {@code static final} Random in the service's classes
 * and service-support's (the build, which initialises every class, would refuse it; crypto-common checks its own), and
 * every type the service writes with its ObjectMapper by hand registered for reflection (the build registers the REST
 * endpoints' and clients' types only; Jackson finds no property of any other, and every upload would fail).
 */
class NativeImageRulesTest {
    @Test
    void noStaticFinalRandom() {
        assertEquals(List.of(), NativeImageRules.staticFinalRandoms(com.convplatform.upload.storage.FileIds.class,
                com.convplatform.support.ApiError.class));
    }

    @Test
    void everyTypeOfTheEventIsRegisteredForReflection() {
        Set<Class<?>> registered = new HashSet<>();
        for (Class<?> c : List.of(UploadService.class, HookIntakeClient.class, HookErasures.class)) {
            RegisterForReflection r = c.getAnnotation(RegisterForReflection.class);
            registered.addAll(r == null ? List.of() : List.of(r.targets()));
        }
        // the event, its message body (written as text) and its metadata (IntakeEvent declares it Object)
        Deque<Class<?>> todo = new ArrayDeque<>(List.of(IntakeEvent.class, FileMessage.Body.class,
                FileMessage.Metadata.class));
        Set<Class<?>> seen = new HashSet<>();
        List<String> missing = new ArrayList<>();
        while (!todo.isEmpty()) {
            Class<?> type = todo.pop();
            if (!type.isRecord() || !seen.add(type)) {
                continue;
            }
            if (!registered.contains(type)) {
                missing.add(type.getName());
            }
            for (RecordComponent component : type.getRecordComponents()) {
                todo.add(component.getType());
                if (component.getGenericType() instanceof ParameterizedType generic) {
                    for (Type argument : generic.getActualTypeArguments()) {
                        if (argument instanceof Class<?> c) {
                            todo.add(c);
                        }
                    }
                }
            }
        }
        assertEquals(List.of(), missing);
    }
}
