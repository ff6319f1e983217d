//! The S3 client of a build without the cargo feature `s3`: a type with no value, so
//! [`Client::connect`] is the only way in and it refuses; what would use a client compiles
//! and is tested the same in both builds.

use super::location::S3Location;
use super::reported::Reported;
use crate::error::{Error, S3Failure};
use std::future::Future;

pub(crate) enum Client {}

pub(crate) enum S3Api {}

/// One object's HeadObject answer, by its place in the list asked for.
pub(crate) type Answer = (usize, Result<Reported, S3Failure>);

impl Client {
    pub(crate) fn connect(location: &S3Location, _: Option<&str>) -> Result<Client, Error> {
        Err(location.error(S3Failure::NotBuiltIn))
    }

    pub(crate) fn block_on<F: Future>(&self, _: F) -> F::Output {
        match *self {}
    }

    pub(crate) fn api(&self) -> &S3Api {
        match *self {}
    }

    pub(crate) fn head_all(&self, _: Vec<(usize, S3Location)>, _: std::sync::mpsc::Sender<Answer>) {
        match *self {}
    }
}

impl S3Api {
    pub(crate) async fn head_object(&self, _: &S3Location) -> Result<Reported, S3Failure> {
        match *self {}
    }

    pub(crate) async fn list(&self, _: &S3Location) -> Result<Vec<String>, S3Failure> {
        match *self {}
    }
}
