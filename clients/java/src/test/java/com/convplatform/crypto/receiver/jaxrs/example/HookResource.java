package com.convplatform.crypto.receiver.jaxrs.example;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.core.MediaType;

import com.convplatform.crypto.receiver.jaxrs.VerifiedHook;

/** The endpoint of docs/integrators.md's Java receiver: only verified hooks reach it, as the exact bytes received. */
@Path("/hooks")
public class HookResource {
    @POST
    @VerifiedHook
    @Consumes(MediaType.APPLICATION_JSON)
    public void receive(String body) {
        System.out.println("verified hook: " + body); // store it, then answer 204
    }
}
