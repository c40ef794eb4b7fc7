import { test } from 'vitest-energy'

test('screen 2 step 1', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(377)
})
test('screen 2 step 2', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(211)
})
test('screen 2 step 3', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~feed-list').click()
  await driver.pause(301)
})
test('screen 2 step 4', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(274)
})
test('screen 2 step 5', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(198)
})
test('screen 2 step 6', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(454)
})
test('screen 2 step 7', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(397)
})
test('screen 2 step 8', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(290)
})
test('screen 2 step 9', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(391)
})
test('screen 2 step 10', async ({ driver, energy }) => {
  void energy // naming it opens the automatic window
  await driver.$('~refresh').click()
  await driver.pause(339)
})
